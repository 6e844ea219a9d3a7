package io.rustcdc.flink.testing;

import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

/**
 * A failure of the stream's reader at its first change, before any checkpoint holds the stream split,
 * with snapshot chunks read since the last completed checkpoint (assigned before it or after it) while
 * writers change {@link TwoTables}. The reader fails over to that checkpoint and reads those chunks
 * again, at later positions, while the enumerator lives on: the changelog must still converge on the
 * tables' rows with no change emitted twice or before its row.
 *
 * <p>The drill takes every checkpoint itself (the job's interval is an hour): one while the snapshot
 * is under way, none from then until the failure, then one every 300 ms. Each snapshot row waits a
 * quarter of a millisecond in {@link Json}, so the snapshot outlasts that checkpoint; a run where it did
 * not, or where the stream started before that checkpoint, fails as inconclusive rather than passing. The
 * writers must outlast the failure (at parallelism 2 the stream starts 10 s after the last chunk, by the
 * stream gate's fallback, as no checkpoint is taken then); the drill ends them once the stream made again
 * has carried 50 changes.
 */
public final class HandoffFailureDrill {
    private static final Duration LIMIT = Duration.ofSeconds(120);

    private HandoffFailureDrill() {}

    /**
     * Native JSON that counts snapshot rows and stream changes, holds each snapshot row a quarter of a millisecond, and
     * throws at the first stream change once {@link #armed}. Static state: one drill per JVM at a time.
     */
    public static final class Json implements ChangeEventDeserializer<String> {
        private static final long serialVersionUID = 1L;
        static final AtomicInteger READS = new AtomicInteger();
        static final AtomicInteger CHANGES = new AtomicInteger();
        static final AtomicInteger FAILURES = new AtomicInteger();
        static volatile int readsAtFailure = -1;
        static volatile boolean armed;
        private final ChangeEventDeserializer<String> json = ChangeEventDeserializer.json();

        @Override
        public void deserialize(ChangeEvent event, Collector<String> out) throws Exception {
            if (event.op() == Op.READ) {
                READS.incrementAndGet();
                LockSupport.parkNanos(250_000);
            } else {
                if (armed) {
                    armed = false;
                    readsAtFailure = READS.get();
                    FAILURES.incrementAndGet();
                    throw new IllegalStateException("The handoff drill fails the stream's reader at its first change");
                }
                CHANGES.incrementAndGet();
            }
            json.deserialize(event, out);
        }

        @Override
        public TypeInformation<String> producedType() {
            return json.producedType();
        }

        static void reset() {
            READS.set(0);
            CHANGES.set(0);
            FAILURES.set(0);
            readsAtFailure = -1;
            armed = false;
        }
    }

    /**
     * Runs the drill on {@code source} (built with {@link Json}) over {@code rows} rows of t1, at parallelism 1 or 2
     * and with the writers {@code writers} makes from a seed, both drawn from a seed of {@code seedProperty} (printed,
     * with how to replay it); returns the changelog, to be checked for violations.
     */
    public static JsonChangelog run(MiniCluster cluster, CdcSource<String, ?, ?> source, int rows,
            LongFunction<ConcurrentWriters> writers, Callable<Connection> database, String seedProperty)
            throws Exception {
        long[] seeds = Seeds.of(seedProperty, seedProperty + ".runs", 1);
        if (seeds.length != 1) {
            throw new IllegalArgumentException("The handoff drill runs one seed at a time: " + seedProperty);
        }
        long seed = seeds[0];
        int parallelism = 1 + (int) (seed & 1); // an odd seed runs at parallelism 2
        String replay = "seed " + seed + " (replay: -D" + seedProperty + "=" + seed + ")";
        System.out.println("handoff drill, " + replay + ": parallelism " + parallelism);
        try {
            return run(cluster, source, parallelism, rows, () -> writers.apply(seed), database);
        } catch (AssertionError e) {
            throw new AssertionError(replay + ": " + e.getMessage(), e);
        }
    }

    private static JsonChangelog run(MiniCluster cluster, CdcSource<String, ?, ?> source,
            int parallelism, int rows, Callable<ConcurrentWriters> writers, Callable<Connection> database)
            throws Exception {
        Json.reset();
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofHours(1));
        // the first periodic checkpoint comes at a random time up to the interval, but not before this pause
        conf.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, Duration.ofMinutes(59));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        CloseableIterator<String> results = env.fromSource(source, WatermarkStrategy.noWatermarks(), "source").collectAsync();
        JobClient job = env.executeAsync("handoff failure");
        BlockingQueue<String> records = new LinkedBlockingQueue<>();
        Thread collector = new Thread(() -> results.forEachRemaining(records::add), "collect");
        collector.setDaemon(true);
        collector.start();
        Thread checkpoints = null;
        JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
        try (ConcurrentWriters running = writers.call()) {
            Poll.until("as many snapshot rows as a fifth of t1's are read", LIMIT, () -> Json.READS.get() >= rows / 5);
            cluster.triggerCheckpoint(job.getJobID()).get(60, TimeUnit.SECONDS);
            int readsAtCheckpoint = Json.READS.get();
            Json.armed = true;
            if (Json.CHANGES.get() > 0 || readsAtCheckpoint >= rows) {
                throw new AssertionError("Inconclusive: the snapshot had ended (" + readsAtCheckpoint + " rows read, "
                        + Json.CHANGES.get() + " changes) when the checkpoint before the failure completed");
            }
            Poll.until("the stream's reader failed", LIMIT, () -> Json.FAILURES.get() == 1);
            if (Json.readsAtFailure <= readsAtCheckpoint) {
                throw new AssertionError("Inconclusive: no chunk was read between the checkpoint and the failure");
            }
            checkpoints = every300Millis(cluster, job);
            // the writers go on until the stream, made again, has carried their changes for a while
            Poll.until("the stream made again carried 50 changes", LIMIT, () -> Json.CHANGES.get() >= 50);
            running.endNow();
            if (running.transactions() <= 100) {
                throw new AssertionError("The writers committed only " + running.transactions() + " transactions");
            }
            Map<String, Map<String, String>> expected;
            try (Connection c = database.call()) {
                expected = TwoTables.rows(c);
            }
            changelog.drainUntil(records, () -> TwoTables.reached(changelog, expected), LIMIT);
            System.out.println("  " + readsAtCheckpoint + " rows read at the checkpoint, " + Json.readsAtFailure
                    + " at the failure; " + running.transactions() + " transactions; changelog " + changelog.ops());
        } finally {
            if (checkpoints != null) {
                checkpoints.interrupt();
            }
            results.close();
            job.cancel();
        }
        return changelog;
    }

    /** Triggers a checkpoint of {@code job} every 300 ms until interrupted; one that fails (a restart) is let be. */
    private static Thread every300Millis(MiniCluster cluster, JobClient job) {
        Thread t = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    cluster.triggerCheckpoint(job.getJobID()).get(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception declined) {
                    // the job is restarting: the next one is taken
                }
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "checkpoints");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
