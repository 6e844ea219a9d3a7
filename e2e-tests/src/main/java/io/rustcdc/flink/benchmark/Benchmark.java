package io.rustcdc.flink.benchmark;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresServer;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The benchmark harness: this project's PostgreSQL source against Apache Flink CDC's postgres-cdc
 * and against the physical limit, on the same database, tables, sink and settings. Prints a
 * markdown table and writes it, with the raw JSON, to {@code --out} (default target/benchmark).
 *
 * <p>Options: {@code --quick true} (small data, one run: what CI runs), {@code --rows},
 * {@code --changes}, {@code --runs}, {@code --chunk-size}, {@code --latency-seconds},
 * {@code --rate}, {@code --out}, {@code --heap} (each run's -Xmx, default 2g), {@code --peer false} (our
 * side and the limits only, while working on speed). The peer's classpath comes from {@code -Dbenchmark.peer.classpath}.
 */
public final class Benchmark {

    private final Map<String, String> options;
    private final boolean quick;
    private final long rows;
    private final long changes;
    private final int runs;
    private final int chunkSize;
    private final String[] sides;
    private final String heap;
    private final PrintStream print;
    private final Map<String, Figure> figures = new LinkedHashMap<>();
    private final Map<String, List<String>> hotFrames = new LinkedHashMap<>();
    private final List<String> rawRuns = new ArrayList<>();

    private Benchmark(Map<String, String> options, PrintStream print) {
        this.options = options;
        this.quick = Boolean.parseBoolean(options.getOrDefault("quick", "false"));
        this.rows = Long.parseLong(options.getOrDefault("rows", quick ? "20000" : "2000000"));
        this.changes = Long.parseLong(options.getOrDefault("changes", quick ? "20000" : "1000000"));
        this.runs = Integer.parseInt(options.getOrDefault("runs", quick ? "1" : "3"));
        this.chunkSize = Integer.parseInt(options.getOrDefault("chunk-size", quick ? "2000" : "8096"));
        this.sides = Boolean.parseBoolean(options.getOrDefault("peer", "true"))
                ? new String[] {SideRunner.OURS, SideRunner.PEER} : new String[] {SideRunner.OURS};
        this.heap = options.getOrDefault("heap", "2g");
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
        String peerClasspath = System.getProperty("benchmark.peer.classpath");
        if (peerClasspath == null) {
            throw new IllegalStateException("Set -Dbenchmark.peer.classpath (the README's benchmark command does)");
        }
        PostgresServer server = PostgresServer.shared();
        BenchmarkDatabase db = new BenchmarkDatabase(server.createDatabase("bench"));
        say("PostgreSQL " + server.majorVersion() + "; creating " + rows + " rows ...");
        db.create(rows);
        SideRunner runner = new SideRunner(out, db.db(), peerClasspath, heap);
        for (int p = 1; p <= 2; p++) {
            snapshot(db, runner, p);
        }
        drain(db, runner);
        latency(db, runner);
        return report(out, server, commandArgs);
    }

    private void snapshot(BenchmarkDatabase db, SideRunner runner, int parallelism) throws Exception {
        Figure speed = figure("snapshot p" + parallelism, "rows/s");
        for (int r = 1; r <= runs; r++) {
            for (String side : sides) {
                String name = "snapshot-p" + parallelism + "-" + side + "-r" + r;
                String slot = ("snap_" + side + "_p" + parallelism + "_r" + r);
                String result = runner.run(side, name, List.of("--phase", "snapshot", "--table", "public.bench",
                        "--publication", "bench_pub", "--slot", slot, "--parallelism", String.valueOf(parallelism),
                        "--events", String.valueOf(rows), "--chunk-size", String.valueOf(chunkSize)));
                db.dropSlot(slot);
                record(name, result, side, speed, parallelism == 1 ? "snapshot p1" : null, runner);
            }
            speed.limit.add(Limits.copy(db.db(), "bench"));
        }
    }

    private void drain(BenchmarkDatabase db, SideRunner runner) throws Exception {
        Figure speed = figure("stream drain", "events/s");
        List<String> slots = new ArrayList<>();
        for (int r = 1; r <= runs; r++) {
            for (String side : sides) {
                slots.add("drain_" + side + "_r" + r);
            }
            slots.add("drain_limit_r" + r);
        }
        slots.forEach(db::createSlot);
        say("committing a backlog of " + changes + " changes ...");
        db.commitBacklog(changes);
        for (int r = 1; r <= runs; r++) {
            for (String side : sides) {
                String name = "drain-" + side + "-r" + r;
                String slot = "drain_" + side + "_r" + r;
                String result = runner.run(side, name, List.of("--phase", "drain", "--table", "public.churn",
                        "--publication", "churn_pub", "--slot", slot, "--parallelism", "1",
                        "--events", String.valueOf(changes), "--chunk-size", String.valueOf(chunkSize)));
                db.dropSlot(slot);
                record(name, result, side, speed, "stream drain", runner);
            }
            String slot = "drain_limit_r" + r;
            speed.limit.add(Limits.replication(db.db(), slot, "churn_pub", changes));
            db.dropSlot(slot);
        }
    }

    private void latency(BenchmarkDatabase db, SideRunner runner) throws Exception {
        String rate = options.getOrDefault("rate", quick ? "200" : "1000");
        String seconds = options.getOrDefault("latency-seconds", quick ? "3" : "20");
        Figure p50 = figure("latency p50 at " + rate + " rows/s", "ms");
        Figure p99 = figure("latency p99 at " + rate + " rows/s", "ms");
        Figure max = figure("latency max at " + rate + " rows/s", "ms");
        long firstId = 1;
        for (int r = 1; r <= runs; r++) {
            for (String side : sides) {
                String name = "latency-" + side + "-r" + r;
                String slot = "lat_" + side + "_r" + r;
                db.createSlot(slot);
                firstId += 1_000_000_000L;
                String result = runner.run(side, name, List.of("--phase", "latency", "--table", "public.lat",
                        "--publication", "lat_pub", "--slot", slot, "--parallelism", "1", "--rate", rate,
                        "--seconds", seconds, "--first-id", String.valueOf(firstId), "--chunk-size",
                        String.valueOf(chunkSize)));
                db.dropSlot(slot);
                rawRuns.add(withName(name, result));
                p50.of(side).add(number(result, "p50"));
                p99.of(side).add(number(result, "p99"));
                max.of(side).add(number(result, "max"));
                say(name + ": " + result);
            }
        }
    }

    /** Records a throughput run: its speed, and its memory under the figures of {@code memoryPhase}. */
    private void record(String name, String result, String side, Figure speed, String memoryPhase, SideRunner runner)
            throws Exception {
        rawRuns.add(withName(name, result));
        say(name + ": " + result);
        speed.of(side).add(number(result, "events_per_second"));
        if (memoryPhase != null) {
            figure("peak heap, " + memoryPhase, "MiB").of(side).add(number(result, "peak_heap_bytes") / (1 << 20));
            figure("peak RSS, " + memoryPhase, "MiB").of(side).add(number(result, "peak_rss_bytes") / (1 << 20));
        }
        String phase = speed.name + ", " + side;
        if (!hotFrames.containsKey(phase)) {
            hotFrames.put(phase, HotFrames.top(runner.recording(name), 3));
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

    private Path report(Path out, PostgresServer server, String commandArgs) throws Exception {
        long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        String machine = Runtime.getRuntime().availableProcessors() + " cores, " + (memory >> 30) + " GiB, "
                + System.getProperty("os.name") + " " + System.getProperty("os.version") + ", Java "
                + System.getProperty("java.version");
        String command = "mvn -q -Pbenchmark -DskipTests package" + (commandArgs.isEmpty() ? ""
                : " -Dbenchmark.args=\"" + commandArgs + "\"");
        StringBuilder md = new StringBuilder();
        md.append("Machine: ").append(machine).append("; PostgreSQL ").append(server.majorVersion())
                .append(" (embedded, on the same machine).\n");
        md.append("Ours: rustcdc on Flink 2.3.0. Peer: Apache Flink CDC 3.5.0 postgres-cdc (incremental snapshot, pgoutput) "
                + "on Flink 1.20.3. Limit: PgJDBC reading COPY TO STDOUT / the raw pgoutput stream, nothing decoded.\n");
        md.append("Data: ").append(rows).append(" rows snapshotted, a backlog of ").append(changes)
                .append(" changes; chunk size ").append(chunkSize).append("; checkpoints every 3 s; ").append(runs)
                .append(runs == 1 ? " run" : " runs (median, then min–max)").append(" per figure; each run a JVM of its own with -Xmx").append(heap).append(".\n");
        md.append("Command: `").append(command).append("`\n\n");
        md.append("| figure | ours | peer | limit | ours/peer | ours/limit |\n|---|---|---|---|---|---|\n");
        figures.values().forEach(f -> md.append(f.markdownRow()).append('\n'));
        md.append("\nThroughput: higher is better; latency and memory: lower is better.\n\nHottest frames (JFR execution samples, top of stack, first run):\n\n");
        hotFrames.forEach((phase, frames) -> md.append("- ").append(phase).append(": ").append(String.join("; ", frames)).append('\n'));
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
