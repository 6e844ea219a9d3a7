package io.rustcdc.flink.benchmark;

import io.rustcdc.flink.source.CdcSourceOptions;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.annotation.Nullable;

/**
 * The benchmark harness: this project's source against Apache Flink CDC's and against the physical
 * limit, on the same database, tables, sink and settings: PostgreSQL ({@code --database postgres},
 * the default), MariaDB ({@code --database mariadb}) or Oracle MySQL ({@code --database mysql}). Prints
 * a markdown table and writes it, with the raw JSON, to {@code --out} (default target/benchmark). A
 * run of the peer that fails is reported as the peer's figure ({@code peer fails: <reason>}) and the
 * peer's other runs of that figure (in a quick run, of every later figure) are not tried; a run of ours that
 * fails fails the benchmark.
 *
 * <p>Options: {@code --quick true} (small data, one run, each side's runs in turn in one JVM of the side's with C1
 * only, the snapshots and Flink's pace at p1 alone and the limit's read in each format once: what CI runs), {@code --rows},
 * {@code --changes}, {@code --runs}, {@code --chunk-size} (both sides; without it each side's own default),
 * {@code --latency-seconds},
 * {@code --rate}, {@code --out}, {@code --heap} (each run's -Xmx, default 2g), {@code --peer false} (our
 * side and the limits only, while working on speed), {@code --key bigint|text|composite} (the
 * snapshotted table's primary key, {@link BenchKey}), {@code --phases snapshot} (the snapshots only,
 * no drain or latency) or {@code stream} (the drain and latency only), {@code --wal-transport sql-peek}
 * (PostgreSQL only: our side reads the slot with
 * {@code wal.transport} = {@code sql-peek} in the drain and latency runs instead of a replication stream; the
 * peer, which has no such transport, streams as before), {@code --path json|sql|both} (default both: every
 * figure on the JSON path and on the SQL path, {@link BenchPath}; a quick run's SQL path is the p1 snapshot
 * alone), {@code --json-output bytes|string} (default string: our JSON path's runs emit byte[] with {@code
 * ChangeEventDeserializer.jsonBytes()} into a sink of byte[], or Strings with {@code json()}; the peer's are
 * Strings), {@code --object-reuse true|false} (default false: our side's runs with Flink's {@code
 * pipeline.object-reuse}, so that records are not copied between chained operators; the peer's without). The
 * peers' classpaths come from {@code -Dbenchmark.peer.classpath} and {@code -Dbenchmark.peer-mysql.classpath}.
 */
public final class Benchmark {

    /** The figure of Flink's start ({@link #floor}). */
    static final String FLOOR = "Flink's start: a job of one record, no database, its first event after";
    /** The figures of Flink's pace ({@link #pace}), with the parallelism after them. */
    static final String PACE = "Flink's pace: as many ready documents, no database, p";
    /** The figures of Flink with the limit's read ({@link #limitRead}), named by {@link #limitReadFigure}. */
    static final String LIMIT_READ = "Flink with the limit's read: ready documents, p1, ";
    /** Flink CDC's default {@code scan.incremental.snapshot.chunk.size}, the peer's when none is given. */
    static final int PEER_CHUNK_SIZE = 8096;

    private final Map<String, String> options;
    private final boolean quick;
    /** In a quick run, the reason the peer's first failed run failed: its later runs are not tried. */
    @Nullable private String quickPeerFailure;
    private final long rows;
    private final long changes;
    private final int runs;
    /** Both sides' chunk size; null for each side's own default ({@link #chunkArgs}). */
    @Nullable private final Integer chunkSize;
    private final String[] sides;
    private final String heap;
    private final BenchKey key;
    /** {@code --phases}: {@code all}, {@code snapshot} (the snapshots alone) or {@code stream} (the drain and latency). */
    private final String phases;
    /** Our side's {@code wal.transport} in the stream phases (PostgreSQL): {@code streaming} or {@code sql-peek}. */
    private final String walTransport;
    /** Whether our JSON path's runs emit UTF-8 bytes ({@code jsonBytes()}) rather than Strings. */
    private final boolean jsonBytes;
    /** Whether our side's runs set {@code pipeline.object-reuse}. */
    private final boolean objectReuse;
    /** The paths measured, {@code json} and/or {@code sql} ({@link BenchPath}). */
    private final List<BenchPath> paths;
    private final PrintStream print;
    private final Map<String, Figure> figures = new LinkedHashMap<>();
    private final Map<String, List<String>> hotFrames = new LinkedHashMap<>();
    private final List<String> rawRuns = new ArrayList<>();
    /** The first id of the next latency run's rows: each run writes rows of its own. */
    private long latencyFirstId = 1;
    /** The database server's CPU time, read around each throughput run and limit. */
    private ServerCpu serverCpu;
    /** The mean length of our JSON documents in each p1 snapshot run of the JSON path, for {@link #pace}. */
    private final List<Double> documentLengths = new ArrayList<>();

    private Benchmark(Map<String, String> options, PrintStream print) {
        this.options = options;
        this.quick = Boolean.parseBoolean(options.getOrDefault("quick", "false"));
        // a quick run's 6,000 rows are three chunks of its 2,000 (the snapshots read more than one chunk), and its
        // 6,000 changes commit inserts, updates and deletes each in transactions of 1, 10, 100 and 1,000 rows and a
        // fifth of the rest, as 20,000 did
        this.rows = Long.parseLong(options.getOrDefault("rows", quick ? "6000" : "2000000"));
        this.changes = Long.parseLong(options.getOrDefault("changes", quick ? "6000" : "1000000"));
        this.runs = Integer.parseInt(options.getOrDefault("runs", quick ? "1" : "3"));
        this.chunkSize = options.containsKey("chunk-size") ? Integer.valueOf(options.get("chunk-size"))
                : quick ? Integer.valueOf(2000) : null;
        this.sides = Boolean.parseBoolean(options.getOrDefault("peer", "true"))
                ? new String[] {SideRunner.OURS, SideRunner.PEER} : new String[] {SideRunner.OURS};
        this.heap = options.getOrDefault("heap", "2g");
        this.key = BenchKey.of(options.getOrDefault("key", "bigint"));
        this.phases = phases(options);
        this.walTransport = walTransport(options);
        this.jsonBytes = jsonBytes(options.getOrDefault("json-output", "string"));
        this.objectReuse = objectReuse(options.getOrDefault("object-reuse", "false"));
        this.paths = BenchPath.of(options.getOrDefault("path", "both"));
        this.print = print;
    }

    public static void main(String[] args) throws Exception {
        run(args, System.out);
        System.exit(0); // the embedded PostgreSQL stops with the JVM
    }

    /** Runs the benchmark; returns the report's markdown file. */
    public static Path run(String[] args, PrintStream print) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        return new Benchmark(options, print).run(String.join(" ", args));
    }

    private Path run(String commandArgs) throws Exception {
        Path out = Path.of(options.getOrDefault("out", "target/benchmark")).toAbsolutePath();
        String database = options.getOrDefault("database", "postgres");
        try (BenchmarkTarget target = target(database)) {
            say(target.server() + "; creating " + rows + " rows ...");
            target.create(rows, key);
            List<String> connection = target.connection();
            serverCpu = ServerCpu.listeningOn(Integer.parseInt(connection.get(connection.indexOf("--port") + 1)));
            // in a quick run each side's runs share a JVM (SideRunner): closed before the database
            try (SideRunner runner = new SideRunner(out, target, heap, quick ? SideRunner.QUICK_JVM_OPTIONS : List.of(),
                    quick)) {
                if (!"stream".equals(phases) && !quick) {
                    // one read of the snapshot limit, not counted, so that the first counted one's reader is compiled too:
                    // read cold in this JVM, MariaDB's and MySQL's first limit spent a third more CPU per row in its reader
                    // and read a quarter slower than the next two (2026-12-05); not in a quick run, which measures nothing
                    say("the snapshot limit once, not counted: " + Math.round(target.snapshotLimit()) + " rows/s");
                }
                awaitQuietServer();
                for (BenchPath path : paths) {
                    if (path.runs(quick, "floor")) {
                        floor(target, runner, path);
                    }
                }
                for (int p = 1; p <= (quick ? 1 : 2) && !"stream".equals(phases); p++) {
                    for (BenchPath path : paths) {
                        if (path.runs(quick, "snapshot p" + p)) {
                            snapshot(target, runner, p, path);
                        }
                    }
                }
                for (int p = 1; p <= (quick ? 1 : 2) && !documentLengths.isEmpty(); p++) {
                    pace(target, runner, p);
                }
                for (String format : documentLengths.isEmpty() ? List.<String>of() : List.of("text", "binary")) {
                    for (int c : limitReadConnections(format)) {
                        limitRead(target, runner, format, c);
                    }
                }
                if (!"snapshot".equals(phases)) {
                    drain(target, runner);
                    for (BenchPath path : paths) {
                        if (path.runs(quick, "latency")) {
                            latency(target, runner, path);
                        }
                    }
                }
                return report(out, target, commandArgs);
            }
        }
    }

    private static String phases(Map<String, String> options) {
        String phases = options.getOrDefault("phases", "all");
        if (!List.of("all", "snapshot", "stream").contains(phases)) {
            throw new IllegalArgumentException("--phases " + phases + ": expected all, snapshot or stream");
        }
        return phases;
    }

    private static String walTransport(Map<String, String> options) {
        String transport = options.getOrDefault("wal-transport", "streaming");
        if (!"streaming".equals(transport) && !"sql-peek".equals(transport)) {
            throw new IllegalArgumentException("--wal-transport " + transport + ": expected streaming or sql-peek");
        }
        if ("sql-peek".equals(transport) && !"postgres".equals(options.getOrDefault("database", "postgres"))) {
            throw new IllegalArgumentException("--wal-transport sql-peek reads a PostgreSQL slot: use it with "
                    + "--database postgres (the default), not --database " + options.get("database"));
        }
        return transport;
    }

    /** Our side's arguments for its stream runs: the slot's transport, when it is not the default. */
    private List<String> streamArgs(String side) {
        return SideRunner.OURS.equals(side) && !"streaming".equals(walTransport)
                ? List.of("--wal-transport", walTransport) : List.of();
    }

    private static boolean jsonBytes(String output) {
        if (!"bytes".equals(output) && !"string".equals(output)) {
            throw new IllegalArgumentException("--json-output " + output + ": expected bytes or string");
        }
        return "bytes".equals(output);
    }

    private static boolean objectReuse(String value) {
        if (!"true".equals(value) && !"false".equals(value)) {
            throw new IllegalArgumentException("--object-reuse " + value + ": expected true or false");
        }
        return "true".equals(value);
    }

    /**
     * The chunk size of a side's runs: {@code --chunk-size} (a quick run's 2,000) for both, or else each side's own
     * default, as the targets are stated for default settings (ours: no option given; the peer's: Flink CDC's).
     */
    private List<String> chunkArgs(String side) {
        return chunkArgs(chunkSize, side);
    }

    static List<String> chunkArgs(@Nullable Integer chunkSize, String side) {
        if (chunkSize != null) {
            return List.of("--chunk-size", String.valueOf(chunkSize));
        }
        return SideRunner.OURS.equals(side) ? List.of() : List.of("--chunk-size", String.valueOf(PEER_CHUNK_SIZE));
    }

    /**
     * A run's arguments for its path, and on our side object reuse when asked, and on our JSON path the JSON output
     * when it is bytes.
     */
    private List<String> pathArgs(String side, BenchPath path) {
        List<String> args = new ArrayList<>(path.args());
        if (jsonBytes && SideRunner.OURS.equals(side) && path == BenchPath.JSON) {
            args.addAll(List.of("--json-output", "bytes"));
        }
        if (objectReuse && SideRunner.OURS.equals(side)) {
            args.addAll(List.of("--object-reuse", "true"));
        }
        return args;
    }

    static BenchmarkTarget target(String database) {
        switch (database) {
            case "postgres":
                return new PostgresTarget();
            case "mariadb":
                return MySqlFamilyTarget.mariaDb();
            case "mysql":
                return MySqlFamilyTarget.oracleMySql();
            default:
                throw new IllegalArgumentException("--database " + database + ": expected postgres, mariadb or mysql");
        }
    }

    private void snapshot(BenchmarkTarget target, SideRunner runner, int parallelism, BenchPath path) throws Exception {
        Figure speed = figure(path.figure("snapshot p" + parallelism), "rows/s");
        String memoryPhase = parallelism == 1 ? path.figure("snapshot p1") : null;
        for (int r = 1; r <= runs; r++) {
            for (String side : sides) {
                String name = "snapshot-p" + parallelism + "-" + side + path.run() + "-r" + r;
                List<String> args = new ArrayList<>(target.snapshot(name));
                args.addAll(List.of("--phase", "snapshot", "--parallelism", String.valueOf(parallelism),
                        "--events", String.valueOf(rows), "--key", key.name().toLowerCase(java.util.Locale.ROOT)));
                args.addAll(chunkArgs(side));
                args.addAll(pathArgs(side, path));
                String result = run(runner, side, name, args, withMemory(speed, memoryPhase));
                target.release(name);
                if (result != null) {
                    record(name, result, side, speed, memoryPhase, runner);
                    if (parallelism == 1 && path == BenchPath.JSON && SideRunner.OURS.equals(side)) {
                        documentLengths.add(number(result, "mean_event_length"));
                    }
                }
            }
            double cpu = serverCpu.seconds();
            double user = serverCpu.userSeconds();
            long readerNanos = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            speed.limit.add(target.snapshotLimit());
            // the limit's own reader: this thread, reading the rows with the driver and nothing more
            figure("reader CPU per event, " + speed.name, "µs").limit
                    .add((ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - readerNanos) / 1e3 / rows);
            addServerCpu(speed, cpu, user, rows);
        }
    }

    /**
     * Flink's own start, the floor under every figure timed from submission: our side's JVM with a job of one record
     * and no database ({@code --phase floor}), the seconds from its submission to that record at the sink.
     */
    private void floor(BenchmarkTarget target, SideRunner runner, BenchPath path) throws Exception {
        Figure start = figure(path.figure(FLOOR), "s");
        for (int r = 1; r <= runs; r++) {
            String name = "floor-" + SideRunner.OURS + path.run() + "-r" + r;
            List<String> args = new ArrayList<>(target.snapshot(name));
            args.addAll(List.of("--phase", "floor", "--parallelism", "1", "--events", "1"));
            args.addAll(pathArgs(SideRunner.OURS, path));
            String result = runner.run(SideRunner.OURS, name, args);
            target.release(name);
            rawRuns.add(withName(name, result));
            say(name + ": " + result);
            start.of(SideRunner.OURS).add(number(result, "first_event_seconds"));
        }
    }

    /**
     * Flink's pace at {@code parallelism}, no database: our side's JVM with a job of as many ready records as the
     * snapshot has rows, each of our p1 JSON documents' mean length (the median of the runs'), from a sequence source
     * of that parallelism into the same sink ({@code --phase floor} with {@code --events} more than one): what a JSON
     * source's snapshot figure pays besides reading and rendering, the start included.
     */
    private void pace(BenchmarkTarget target, SideRunner runner, int parallelism) throws Exception {
        List<String> args = new ArrayList<>(List.of("--phase", "floor", "--parallelism", String.valueOf(parallelism)));
        args.addAll(pathArgs(SideRunner.OURS, BenchPath.JSON));
        readyDocuments(target, runner, figure(PACE + parallelism, "rows/s"), "pace-p" + parallelism, args);
    }

    /**
     * Flink with the limit's own read ({@link LimitReadJob}): our side's JVM with a job at p1 whose task runs the
     * snapshot limit's statement, over {@code connections} connections at once, and emits a ready document of our
     * p1 JSON documents' mean length for each row received into the same sink: what a JSON source that reads the
     * table so pays at the least, Flink's start included, with nothing decoded or rendered; with {@code format}
     * {@code binary}, the rows in the database's binary format.
     */
    private void limitRead(BenchmarkTarget target, SideRunner runner, String format, int connections) throws Exception {
        readyDocuments(target, runner, figure(limitReadFigure(format, connections), "rows/s"),
                "limit-read-" + format + "-c" + connections, List.of("--phase", "limit-read", "--parallelism", "1",
                        "--connections", String.valueOf(connections), "--read-format", format));
    }

    /**
     * The runs of {@code speed} on our side alone ({@code <run>-ours-r<n>}), each a job of {@code jobArgs} that
     * emits as many ready documents as the snapshot has rows, each of our p1 JSON documents' mean length (the median
     * of the runs'), timed like a snapshot.
     */
    private void readyDocuments(BenchmarkTarget target, SideRunner runner, Figure speed, String run, List<String> jobArgs)
            throws Exception {
        long length = Math.round(Figure.median(documentLengths));
        for (int r = 1; r <= runs; r++) {
            String name = run + "-" + SideRunner.OURS + "-r" + r;
            List<String> args = new ArrayList<>(target.snapshot(name));
            args.addAll(jobArgs);
            args.addAll(List.of("--events", String.valueOf(rows), "--document-length", String.valueOf(length)));
            String result = run(runner, SideRunner.OURS, name, args, List.of(speed));
            target.release(name);
            record(name, result, SideRunner.OURS, speed, null, runner);
        }
    }

    /**
     * The connections of {@link #limitRead}'s runs in {@code format}: one, and two with the bigint key (by which MariaDB
     * and Oracle MySQL split the table); a quick run reads text over one and binary over the most, so that each
     * format and each count of connections is run once (CI's time: each run is a JVM of its own).
     */
    private List<Integer> limitReadConnections(String format) {
        int most = key == BenchKey.BIGINT ? 2 : 1;
        if (quick) {
            return List.of(format.equals("text") ? 1 : most);
        }
        return most == 2 ? List.of(1, 2) : List.of(1);
    }

    /** The figure of {@link #limitRead} with rows in {@code format} ({@code text}, {@code binary}) over {@code connections}. */
    static String limitReadFigure(String format, int connections) {
        return LIMIT_READ + format + ", connections: " + connections;
    }

    /**
     * Waits until the database server has used under 5% of a core for a second (at most two minutes; in a quick run,
     * which measures nothing, three seconds): after the tables are loaded, MariaDB's and MySQL's background threads
     * flush and purge for a while, which would slow the floor's runs, whose job does not touch the database.
     */
    private void awaitQuietServer() throws InterruptedException {
        long start = System.nanoTime();
        long most = quick ? 3 : 120;
        long deadline = start + java.util.concurrent.TimeUnit.SECONDS.toNanos(most);
        double before = serverCpu.seconds();
        while (!Double.isNaN(before) && System.nanoTime() < deadline) {
            Thread.sleep(1_000);
            double now = serverCpu.seconds();
            if (now - before < 0.05) {
                break;
            }
            before = now;
        }
        say(String.format(Locale.ROOT, "Flink's start, the database server quiet after %.0f s (%d at most) ...",
                (System.nanoTime() - start) / 1e9, most));
    }

    private void drain(BenchmarkTarget target, SideRunner runner) throws Exception {
        List<BenchPath> draining = paths.stream().filter(p -> p.runs(quick, "stream drain")).toList();
        if (draining.isEmpty()) {
            return;
        }
        Map<String, List<String>> starts = new LinkedHashMap<>();
        for (int r = 1; r <= runs; r++) {
            for (BenchPath path : draining) {
                for (String side : sides) {
                    String name = "drain-" + side + path.run() + "-r" + r;
                    starts.put(name, target.streamFromNow("churn", name));
                }
            }
            target.streamFromNow("churn", "drain-limit-r" + r);
        }
        say("committing a backlog of " + changes + " changes ...");
        target.commitBacklog(changes);
        for (int r = 1; r <= runs; r++) {
            for (BenchPath path : draining) {
                Figure speed = figure(path.figure("stream drain"), "events/s");
                for (String side : sides) {
                    String name = "drain-" + side + path.run() + "-r" + r;
                    List<String> args = new ArrayList<>(starts.get(name));
                    args.addAll(List.of("--phase", "drain", "--parallelism", "1", "--events", String.valueOf(changes)));
                    args.addAll(chunkArgs(side));
                    args.addAll(streamArgs(side));
                    args.addAll(pathArgs(side, path));
                    String result = run(runner, side, name, args, withMemory(speed, speed.name));
                    target.release(name);
                    if (result != null) {
                        record(name, result, side, speed, speed.name, runner);
                    }
                }
            }
            // one raw read per run, the limit of either path
            double cpu = serverCpu.seconds();
            double user = serverCpu.userSeconds();
            BenchmarkTarget.StreamLimit limit = target.streamLimit("drain-limit-r" + r, changes);
            for (BenchPath path : draining) {
                figure(path.figure("stream drain"), "events/s").limit.add(limit.perSecond());
                figure("first event after, " + path.figure("stream drain"), "s").limit.add(limit.firstSeconds());
                figure("pace after the first event, " + path.figure("stream drain"), "events/s").limit
                        .add(limit.paceAfterFirst());
            }
            draining.forEach(path -> addServerCpu(figure(path.figure("stream drain"), "events/s"), cpu, user, changes));
        }
    }

    private void latency(BenchmarkTarget target, SideRunner runner, BenchPath path) throws Exception {
        String rate = options.getOrDefault("rate", quick ? "200" : "1000");
        String seconds = options.getOrDefault("latency-seconds", quick ? "1" : "20");
        Figure p50 = figure(path.figure("latency p50 at " + rate + " rows/s"), "ms");
        Figure p99 = figure(path.figure("latency p99 at " + rate + " rows/s"), "ms");
        Figure max = figure(path.figure("latency max at " + rate + " rows/s"), "ms");
        for (int r = 1; r <= runs; r++) {
            for (String side : sides) {
                String name = "latency-" + side + path.run() + "-r" + r;
                latencyFirstId += 1_000_000_000L;
                if (SideRunner.PEER.equals(side) && p50.peerFailure != null) {
                    continue;
                }
                List<String> args = new ArrayList<>(target.streamFromNow("lat", name));
                args.addAll(List.of("--phase", "latency", "--parallelism", "1", "--rate", rate, "--seconds", seconds,
                        "--first-id", String.valueOf(latencyFirstId)));
                args.addAll(chunkArgs(side));
                args.addAll(streamArgs(side));
                args.addAll(pathArgs(side, path));
                String result = run(runner, side, name, args, List.of(p50, p99, max));
                target.release(name);
                if (result == null) {
                    continue;
                }
                rawRuns.add(withName(name, result));
                p50.of(side).add(number(result, "p50"));
                p99.of(side).add(number(result, "p99"));
                max.of(side).add(number(result, "max"));
                say(name + ": " + result);
            }
        }
    }

    /**
     * One run of one side: its result, or null when the peer's run fails (or failed before in this
     * figure, or in a quick run at all), its reason then recorded as the peer's value of {@code shown}. A failure
     * of ours fails.
     */
    private String run(SideRunner runner, String side, String name, List<String> args, List<Figure> shown)
            throws Exception {
        boolean peer = SideRunner.PEER.equals(side);
        if (peer && quickPeerFailure != null && shown.get(0).peerFailure == null) {
            say(name + ": not tried, as the peer failed before in this quick run");
            shown.forEach(f -> f.peerFailure = quickPeerFailure);
        }
        if (peer && shown.get(0).peerFailure != null) {
            return null;
        }
        try {
            double cpu = serverCpu.seconds();
            double user = serverCpu.userSeconds();
            String result = runner.run(side, name, args);
            double after = serverCpu.seconds();
            return result.substring(0, result.lastIndexOf('}')) + ServerCpu.field(cpu, after)
                    + ServerCpu.userField(user, serverCpu.userSeconds()) + "}";
        } catch (SideRunner.RunFailure e) {
            if (!peer) {
                throw e;
            }
            say(name + ": the peer fails: " + e.reason() + " (its log: " + runner.log(name) + ")");
            shown.forEach(f -> f.peerFailure = e.reason());
            if (quick) {
                quickPeerFailure = e.reason();
            }
            return null;
        }
    }

    /** {@code speed}, and the memory figures of {@code memoryPhase} when it is not null. */
    private List<Figure> withMemory(Figure speed, String memoryPhase) {
        return memoryPhase == null ? List.of(speed) : List.of(speed, figure("peak heap, " + memoryPhase, "MiB"),
                figure("peak RSS, " + memoryPhase, "MiB"));
    }

    /** Records a throughput run: its speed, and its memory under the figures of {@code memoryPhase}. */
    private void record(String name, String result, String side, Figure speed, String memoryPhase, SideRunner runner)
            throws Exception {
        rawRuns.add(withName(name, result));
        say(name + ": " + result);
        speed.of(side).add(number(result, "events_per_second"));
        // CPU time per event, of the run's JVM (its start included) and of its task, reader, GC and JIT threads:
        // steadier than rows/s on a shared machine; and the job's start apart from its pace
        if (result.contains("\"task_cpu_seconds\"")) {
            double events = number(result, "events");
            figure("CPU per event, " + speed.name, "µs").of(side).add(number(result, "cpu_seconds") * 1e6 / events);
            for (String threads : List.of("task", "reader", "GC", "JIT")) {
                String field = threads.toLowerCase(Locale.ROOT) + "_cpu_seconds";
                if (result.contains("\"" + field + "\"")) {
                    figure(threads + " CPU per event, " + speed.name, "µs").of(side).add(number(result, field) * 1e6 / events);
                }
            }
        }
        for (String mode : List.of("", "user ")) {
            String field = "server_" + mode.replace(' ', '_') + "cpu_seconds";
            if (result.contains("\"" + field + "\"")) {
                figure("database " + mode + "CPU per event, " + speed.name, "µs").of(side)
                        .add(number(result, field) * 1e6 / number(result, "events"));
            }
        }
        if (result.contains("\"first_event_seconds\"")) {
            double first = number(result, "first_event_seconds");
            figure("first event after, " + speed.name, "s").of(side).add(first);
            figure("pace after the first event, " + speed.name, speed.unit).of(side)
                    .add((number(result, "events") - 1) / (number(result, "seconds") - first));
        }
        if (memoryPhase != null) {
            figure("peak heap, " + memoryPhase, "MiB").of(side).add(number(result, "peak_heap_bytes") / (1 << 20));
            figure("peak RSS, " + memoryPhase, "MiB").of(side).add(number(result, "peak_rss_bytes") / (1 << 20));
        }
        String phase = speed.name + ", " + side;
        if (!hotFrames.containsKey(phase)) {
            hotFrames.put(phase, HotFrames.top(runner.recording(name), 3));
        }
    }

    /**
     * The database server's CPU per event in a limit's read of {@code events}, all and user mode's alone, from its
     * readings {@code before} and {@code userBefore}.
     */
    private void addServerCpu(Figure speed, double before, double userBefore, long events) {
        double after = serverCpu.seconds();
        if (!Double.isNaN(before) && !Double.isNaN(after)) {
            figure("database CPU per event, " + speed.name, "µs").limit.add((after - before) * 1e6 / events);
            figure("database user CPU per event, " + speed.name, "µs").limit
                    .add((serverCpu.userSeconds() - userBefore) * 1e6 / events);
        }
    }

    private Figure figure(String name, String unit) {
        return figures.computeIfAbsent(name, n -> new Figure(n, unit));
    }

    private static String withName(String name, String result) {
        return "{\"run\":\"" + name + "\"," + result.substring(1);
    }

    private static double number(String json, String field) {
        Matcher m = Pattern.compile("\"" + field + "\":(-?[0-9.]+)").matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("No " + field + " in " + json);
        }
        return Double.parseDouble(m.group(1));
    }

    private Path report(Path out, BenchmarkTarget target, String commandArgs) throws Exception {
        long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        String machine = Runtime.getRuntime().availableProcessors() + " cores, " + (memory >> 30) + " GiB, "
                + System.getProperty("os.name") + " " + System.getProperty("os.version") + ", Java "
                + System.getProperty("java.version");
        String command = "mvn -q -Pbenchmark -DskipTests package" + (commandArgs.isEmpty() ? ""
                : " -Dbenchmark.args=\"" + commandArgs + "\"");
        StringBuilder md = new StringBuilder();
        md.append("Machine: ").append(machine).append("; ").append(target.server())
                .append(" (embedded, on the same machine).\n");
        md.append("Paths: ").append(String.join("; ", paths.stream().map(p -> p.description).toList()))
                .append(quick && paths.contains(BenchPath.SQL) ? " (quick: the SQL path's "
                        + String.join(", ", new java.util.TreeSet<>(BenchPath.QUICK_SQL)) + " only)" : "").append(".\n");
        md.append("Ours: rustcdc on Flink 2.3.0")
                .append("streaming".equals(walTransport) ? "" : ", reading the slot with wal.transport = "
                        + walTransport + " in the drain and latency runs (the peer streams)")
                .append(jsonBytes && paths.contains(BenchPath.JSON) ? ", JSON output as byte[] (jsonBytes(); "
                        + "the peer's as String)" : "")
                .append(objectReuse ? ", with pipeline.object-reuse (the peer without)" : "")
                .append(". ").append(target.peerAndLimits()).append("\n");
        md.append("Data: ").append(rows).append("stream".equals(phases) ? " rows (not snapshotted)" : " rows snapshotted")
                .append(", a backlog of ").append(changes)
                .append("snapshot".equals(phases) ? " (not run)" : "").append(" changes; key of bench: ").append(key.description)
                .append("; chunk size ").append(chunkSize != null ? String.valueOf(chunkSize) : "each side's default (ours "
                        + CdcSourceOptions.CHUNK_SIZE.defaultValue() + ", the peer's " + PEER_CHUNK_SIZE + ")")
                .append("; checkpoints every 3 s; ").append(runs)
                .append(runs == 1 ? " run" : " runs (median, then min–max)")
                .append(quick ? " per figure; each side's runs in turn in one JVM of the side's (quick: each a job of its "
                        + "own on the JVM's one MiniCluster) with -Xmx" : " per figure; each run a JVM of its own with -Xmx")
                .append(heap)
                .append(quick ? " " + String.join(" ", SideRunner.QUICK_JVM_OPTIONS) + " (quick: C1 only)" : "")
                .append(".\n");
        md.append("Command: `").append(command).append("`\n\n");
        md.append("| figure | ours | peer | limit | ours/peer | ours/limit |\n|---|---|---|---|---|---|\n");
        for (BenchPath path : BenchPath.values()) {
            figures.values().stream().filter(f -> path.owns(f.name)).forEach(f -> md.append(f.markdownRow()).append('\n'));
        }
        md.append("\nThroughput: higher is better; latency and memory: lower is better.\n\n"
                + "Hottest frames (JFR execution samples, top of stack, first run):\n\n");
        hotFrames.forEach((phase, frames) -> md.append("- ").append(phase).append(": ").append(String.join("; ", frames))
                .append('\n'));
        Files.createDirectories(out);
        Path markdown = out.resolve("report.md");
        Files.writeString(markdown, md.toString(), StandardCharsets.UTF_8);
        StringBuilder json = new StringBuilder("{\"machine\":\"").append(machine).append("\",\"command\":\"")
                .append(command.replace("\"", "\\\"")).append("\",\"figures\":[");
        json.append(String.join(",", figures.values().stream().map(Figure::json).toList())).append("],\"runs\":[")
                .append(String.join(",", rawRuns)).append("]}\n");
        Files.writeString(out.resolve("report.json"), json.toString(), StandardCharsets.UTF_8);
        print.println();
        print.print(md);
        return markdown;
    }

    private void say(String line) {
        print.println("[benchmark] " + line);
    }
}
