package io.rustcdc.flink.testing.consistency;

import io.rustcdc.flink.testing.LoggerLines;
import io.rustcdc.flink.testing.Seeds;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.minicluster.MiniCluster;

/**
 * The adversarial consistency suite: randomized workloads against a connector's real server while
 * a parallel snapshot runs and after it, with faults at random moments, judged by replaying the
 * changelog against the tables' final content ({@link Replay}).
 *
 * <p>Each run draws its {@link Workload} from a seed printed before it starts and named in any
 * failure. {@code -Drustcdc.consistency.seed=N} replays one run (or several: {@code N,M}); {@code
 * -Drustcdc.consistency.runs=N} sets how many runs a suite does (a soak), each with a new seed. New
 * seeds alternate between keys drawn from three times the rows' count and dense keys (the first run),
 * whose integer key's chunk ends are computed rather than counted.
 * The cluster needs one TaskManager with four slots and HA leadership control.
 *
 * <pre>{@code
 * @Test
 * void changelogIsExact(@InjectMiniCluster MiniCluster cluster) throws Exception {
 *     ConsistencySuite.run(cluster, new MyTarget(db), 2, false);
 * }
 * }</pre>
 */
public final class ConsistencySuite {
    public static final String SEED_PROPERTY = "rustcdc.consistency.seed";
    public static final String RUNS_PROPERTY = "rustcdc.consistency.runs";
    /**
     * The smallest chunk a run draws: a server whose chunks cost a fixed time each (Oracle MySQL
     * completes each from the binlog, on a connection of its own) keeps CI within its budget with it.
     */
    public static final String MIN_CHUNK_PROPERTY = "rustcdc.consistency.min-chunk-size";
    private static final Duration CONVERGENCE = Duration.ofSeconds(120);
    /** Stream events after the last snapshot read before the writers may stop, and how long past their deadline. */
    private static final int STREAM_CHANGES = 50;
    private static final Duration STREAM_WAIT = Duration.ofSeconds(120);

    private ConsistencySuite() {}

    /**
     * Runs {@code defaultRuns} runs (or as the properties say).
     *
     * @param atLeastOnceSinks whether runs may also deliver into an at-least-once sink, with the
     *     source's option for such sinks on
     */
    public static void run(MiniCluster cluster, ConsistencyTarget target, int defaultRuns, boolean atLeastOnceSinks)
            throws Exception {
        long[] seeds = Seeds.of(SEED_PROPERTY, RUNS_PROPERTY, defaultRuns);
        if (System.getProperty(SEED_PROPERTY, "").isBlank()) {
            for (int i = 0; i < seeds.length; i++) {
                seeds[i] = Workload.withDenseKeys(seeds[i], i % 2 == 0); // new runs alternate, the first dense
            }
        }
        System.out.println("Consistency suite on " + target.server() + ": seeds " + Arrays.toString(seeds)
                + " (replay one with -D" + SEED_PROPERTY + "=<seed>)");
        for (long seed : seeds) {
            try {
                runOne(cluster, target, new Workload(seed, atLeastOnceSinks, target.taskManagerLoss()));
            } catch (Exception e) {
                // a job that failed ends the run with Flink's exception: name the seed there too
                throw new AssertionError("Consistency run on " + target.server() + " with seed " + seed + " failed: " + e
                        + "\n  replay it with -D" + SEED_PROPERTY + "=" + seed, e);
            }
        }
    }

    static void runOne(MiniCluster cluster, ConsistencyTarget target, Workload workload) throws Exception {
        String run = "cs" + Long.toHexString(workload.seed);
        System.out.println("Consistency run on " + target.server() + ": " + workload);
        long started = System.nanoTime();
        createTables(target, workload);
        List<String> tables = new ArrayList<>();
        Arrays.stream(SuiteTable.values()).forEach(t -> tables.add(t.name));
        Replay replay = new Replay(workload.sink == Workload.Sink.EXACTLY_ONCE);
        String context = "";
        try (LoggerLines chunkEnds = new LoggerLines("io.rustcdc.flink.source.spi.DenseKeyChunks");
                SuiteJob job = new SuiteJob(cluster,
                target.source(tables, workload.chunkSize, workload.sink == Workload.Sink.AT_LEAST_ONCE, run), workload, run);
                Writers writers = new Writers(target, workload)) {
            long start = System.nanoTime();
            boolean created = false;
            for (Workload.TimedFault f : workload.faults) {
                if (!created && workload.createLaterMillis <= f.atMillis) {
                    pumpUntil(job, replay, start + TimeUnit.MILLISECONDS.toNanos(workload.createLaterMillis));
                    target.beforeTableCreated(run);
                    createTable(target, workload, SuiteTable.CREATED_LATER);
                    created = true;
                }
                pumpUntil(job, replay, start + TimeUnit.MILLISECONDS.toNanos(f.atMillis));
                if (f.fault == Workload.Fault.JOB_MANAGER_FAILOVER) {
                    untilJobManagerMayFailOver(job, replay);
                }
                // at any moment, also before the first checkpoint: for an at-least-once sink the source emits
                // nothing before a checkpoint holds its first start (StartGate), so a restart from nothing finds
                // the sink empty
                job.inject(f.fault);
                System.out.println("  " + f + ": done at " + replay.ops());
            }
            if (!created) {
                pumpUntil(job, replay, start + TimeUnit.MILLISECONDS.toNanos(workload.createLaterMillis));
                target.beforeTableCreated(run);
                createTable(target, workload, SuiteTable.CREATED_LATER);
            }
            // past their deadline the writers go on until the stream has carried their changes for a while
            // after the last snapshot read: a slow snapshot must not leave a run that tests the snapshot alone
            long writeUntil = start + TimeUnit.MILLISECONDS.toNanos(workload.writeMillis) + STREAM_WAIT.toNanos();
            while (!writers.ended()) {
                if (writers.pastDeadline() && replay.changesSinceRead() >= STREAM_CHANGES) {
                    writers.release();
                } else if (System.nanoTime() > writeUntil) {
                    throw new AssertionError(failure(target, workload, writers, replay, "the stream carried fewer than "
                            + STREAM_CHANGES + " changes after the last snapshot read within " + STREAM_WAIT
                            + " after the writers' deadline"));
                }
                pumpUntil(job, replay, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200));
            }
            writers.awaitEnd();
            context = writers.toString();
            if (writers.committed() < 20) {
                throw new AssertionError("Run " + workload + ": the writers committed only " + writers);
            }
            Map<String, Map<String, Map<String, String>>> expected;
            try (Connection c = target.connect()) {
                expected = Replay.read(c);
            }
            long deadline = System.nanoTime() + CONVERGENCE.toNanos();
            while (!replay.reached(expected)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(failure(target, workload, writers, replay,
                            "the replayed changelog did not reach the tables' content within " + CONVERGENCE
                                    + replay.differences(expected)));
                }
                pumpUntil(job, replay, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200));
            }
            if (replay.violationCount() > 0) {
                throw new AssertionError(failure(target, workload, writers, replay, "the changelog reached the "
                        + "tables' content, but broke the exact handoff"));
            }
            if (workload.denseKeys && target.computesDenseChunkEnds()
                    && chunkEnds.containing("." + SuiteTable.INTEGER_KEY.name + ": chunk ends computed").isEmpty()) {
                throw new AssertionError(failure(target, workload, writers, replay, "a run with dense keys had the "
                        + "chunk ends of " + SuiteTable.INTEGER_KEY.name + " counted, not computed: "
                        + chunkEnds.containing("." + SuiteTable.INTEGER_KEY.name + ": chunk ends")));
            }
        } finally {
            target.finish(run);
        }
        System.out.printf("  passed in %d s: %s; events %s%n", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started),
                context, replay.ops());
    }

    private static String failure(ConsistencyTarget target, Workload workload, Writers writers, Replay replay,
            String what) {
        return "Consistency run on " + target.server() + " failed: " + what + "\n  " + replay.violationCount()
                + " violations, first ones: " + String.join("\n    ", replay.violations()) + "\n  events " + replay.ops()
                + "\n  writers: " + writers + "\n  workload: " + workload + "\n  replay it with -D" + SEED_PROPERTY + "="
                + workload.seed;
    }

    /**
     * Until every task of the job's current attempt runs ({@link SuiteJob#mayFailOverJobManager}): after an earlier
     * fault, a record delivered is no sign that the restarted job's collect sink has opened.
     */
    private static void untilJobManagerMayFailOver(SuiteJob job, Replay replay) throws Exception {
        long deadline = System.nanoTime() + CONVERGENCE.toNanos();
        while (!job.mayFailOverJobManager()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("The job's tasks were not all running within " + CONVERGENCE);
            }
            pumpUntil(job, replay, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /** Applies the job's records to the replay until {@code deadlineNanos}, failing if the job ended. */
    private static void pumpUntil(SuiteJob job, Replay replay, long deadlineNanos) throws Exception {
        List<String> batch = new ArrayList<>();
        while (true) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return;
            }
            String first = job.records.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)), TimeUnit.NANOSECONDS);
            if (first == null) {
                job.checkRunning();
                continue;
            }
            replay.apply(first);
            batch.clear();
            job.records.drainTo(batch);
            batch.forEach(replay::apply);
        }
    }

    private static void createTables(ConsistencyTarget target, Workload workload) throws Exception {
        try (Connection c = target.connect();
                Statement s = c.createStatement()) {
            for (SuiteTable t : SuiteTable.values()) {
                s.execute("DROP TABLE IF EXISTS " + t.name);
            }
        }
        for (SuiteTable t : SuiteTable.values()) {
            if (t != SuiteTable.CREATED_LATER) {
                createTable(target, workload, t);
            }
        }
    }

    private static void createTable(ConsistencyTarget target, Workload workload, SuiteTable t) throws Exception {
        Random r = new Random(workload.seed ^ t.ordinal());
        try (Connection c = target.connect();
                Statement s = c.createStatement()) {
            // created and prepared (its owner, replica identity) in one transaction where the target can: a table
            // created while the job runs is then not found by the source before the role may read it
            c.setAutoCommit(!target.preparesInCreatingTransaction());
            s.execute(t.create(target.textKeyCollation(workload.seed), target.tableClause(t.keyColumns)));
            target.prepareTable(c, t.name);
            if (target.preparesInCreatingTransaction()) {
                c.commit();
                c.setAutoCommit(true);
            }
            List<Integer> slots = workload.initialSlots(t);
            for (int from = 0; from < slots.size(); from += 500) {
                StringBuilder insert = new StringBuilder("INSERT INTO ").append(t.name).append(" (").append(t.columns())
                        .append(") VALUES ");
                for (int i = from; i < Math.min(slots.size(), from + 500); i++) {
                    insert.append(i == from ? "" : ", ").append('(').append(t.keyValues(slots.get(i))).append(", ")
                            .append(Workload.values(r, 0)).append(')');
                }
                // the writers may have taken some of these keys already, once the table exists
                String upsert = target.upsert(insert.toString(), t.name, String.join(", ", t.keyColumns),
                        "ver = " + t.name + ".ver + 1");
                for (int attempt = 1; ; attempt++) {
                    try {
                        s.execute(upsert);
                        break;
                    } catch (java.sql.SQLException deadlock) {
                        if (attempt == 5) {
                            throw deadlock; // the writers' row locks, five times in a row
                        }
                    }
                }
            }
            String analyze = target.analyzeStatement(t.name);
            if (analyze != null) {
                s.execute(analyze);
            }
        }
    }
}
