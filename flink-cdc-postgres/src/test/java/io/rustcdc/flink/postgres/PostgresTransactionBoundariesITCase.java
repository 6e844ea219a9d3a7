package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.TransactionBoundaries;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.testing.Poll;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.apache.flink.util.UserCodeClassLoader;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code scan.transaction-boundaries = preserve} on a MiniCluster against real PostgreSQL: a sink whose
 * writer tags each row with the number of checkpoints its subtask has seen (flushes: one before each
 * barrier) shows every transaction written during the stream, of many sizes (random, seed printed), in
 * one checkpoint; and one over the bound ({@value #MAX} changes here) cut only after multiples of the
 * bound, with its warning. At parallelism 1, and at 3 with the stream on a subtask other than 0.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(400)
class PostgresTransactionBoundariesITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(3).build());

    private static final int MAX = 2000;
    private static final Map<String, BlockingQueue<Tagged>> SINKS = new ConcurrentHashMap<>();

    @Test
    void atParallelismOneNoTransactionFallsAcrossTwoCheckpoints(PostgresDatabase db) throws Exception {
        assertThat(run(db, "txb_p1", 1)).isZero();
    }

    @Test
    void withTheStreamOnASubtaskOtherThanTheFirstNoTransactionFallsAcrossTwoCheckpoints(PostgresDatabase db)
            throws Exception {
        assertThat(run(db, "txb_p3", 3)).isNotZero();
    }

    /** Runs the job and the writes, checks the sink's rows, and returns the subtask that streamed. */
    private static int run(PostgresDatabase db, String name, int parallelism) throws Exception {
        long seed = System.nanoTime();
        System.out.println("PostgresTransactionBoundariesITCase seed " + seed);
        Random random = new Random(seed);
        db.execute("CREATE TABLE " + name + " (id bigserial PRIMARY KEY, tx int NOT NULL, n int NOT NULL)",
                "ALTER TABLE " + name + " OWNER TO " + db.replicationUser(),
                "CREATE INDEX ON " + name + " (tx)",
                "INSERT INTO " + name + " (tx, n) SELECT 0, g FROM generate_series(1, 10) g");
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, name)))
                .includeTables("public." + name)
                .transactionBoundaries(TransactionBoundaries.PRESERVE)
                .transactionMaxChanges(MAX)
                .deserializer(new Untagged())
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.enableCheckpointing(50);
        env.fromSource(parallelism > 1 ? new FirstSubtaskIdle<>(source) : source, WatermarkStrategy.noWatermarks(), "pg",
                        Types.STRING)
                .sinkTo(new CheckpointTaggingSink(name));
        BlockingQueue<Tagged> sunk = SINKS.computeIfAbsent(name, n -> new LinkedBlockingQueue<>());
        try (Warnings logs = new Warnings()) {
            JobClient job = env.executeAsync(name);
            try {
                Poll.until("the stream", Duration.ofSeconds(120), () -> "1".equals(db.queryValue(
                        "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = '" + name + "'")));
                Map<Integer, Integer> sizes = new TreeMap<>();
                try (Connection c = db.admin()) {
                    c.setAutoCommit(false);
                    for (int tx = 1; tx <= 120; tx++) {
                        sizes.put(tx, write(c, name, tx, size(random)));
                    }
                    Map<String, List<Tagged>> received = new HashMap<>();
                    int oversize = 1000;
                    // a cut needs a checkpoint to fall in: write transactions over the bound until one did
                    for (boolean cut = false; !cut; oversize++) {
                        assertThat(oversize).as("a checkpoint inside one of 10 transactions of 10 times the bound")
                                .isLessThan(1010);
                        sizes.put(oversize, write(c, name, oversize, 10 * MAX));
                        received = awaitAll(sunk, received, sizes);
                        cut = byTx(received, oversize).stream().map(Tagged::checkpoint).distinct().count() > 1;
                    }
                    check(received, sizes, logs, seed);
                    Set<Integer> streamed = new HashSet<>();
                    received.values().forEach(rows -> rows.forEach(r -> streamed.add(r.subtask())));
                    assertThat(streamed).as("the subtasks that emitted stream rows").hasSize(1);
                    return streamed.iterator().next();
                }
            } finally {
                job.cancel().get(60, TimeUnit.SECONDS);
            }
        } finally {
            SINKS.remove(name);
        }
    }

    private static int size(Random random) {
        switch (random.nextInt(10)) {
            case 0:
            case 1:
                return 1;
            case 2:
                return MAX - 3 + random.nextInt(4); // up to the bound, not over
            case 3:
            case 4:
                return 200 + random.nextInt(MAX - 200);
            default:
                return 1 + random.nextInt(100);
        }
    }

    /**
     * Transaction {@code tx}: {@code changes} changes, inserts and then updates of a part of them;
     * returns {@code changes}.
     */
    private static int write(Connection c, String table, int tx, int changes) throws Exception {
        int inserts = (changes + 1) / 2 + changes / 4;
        try (Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + table + " (tx, n) SELECT " + tx + ", g FROM generate_series(1, " + inserts + ") g");
            s.execute("UPDATE " + table + " SET n = -n WHERE tx = " + tx + " AND n <= " + (changes - inserts));
        }
        c.commit();
        return changes;
    }

    /** Waits until the sink has every change of each transaction of {@code sizes}; the changes by transaction id. */
    private static Map<String, List<Tagged>> awaitAll(BlockingQueue<Tagged> sunk, Map<String, List<Tagged>> received,
            Map<Integer, Integer> sizes) throws Exception {
        long expected = sizes.values().stream().mapToLong(Integer::longValue).sum();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        long count = received.values().stream().mapToLong(List::size).sum();
        while (count < expected) {
            assertThat(System.nanoTime()).as("all %d changes within 3 minutes; %d so far", expected, count)
                    .isLessThan(deadline);
            Tagged t = sunk.poll(100, TimeUnit.MILLISECONDS);
            if (t != null && t.transaction() != null) {
                received.computeIfAbsent(t.transaction(), k -> new ArrayList<>()).add(t);
                count++;
            }
        }
        return received;
    }

    private static void check(Map<String, List<Tagged>> received, Map<Integer, Integer> sizes, Warnings logs,
            long seed) {
        for (Map.Entry<Integer, Integer> e : sizes.entrySet()) {
            List<Tagged> rows = byTx(received, e.getKey());
            assertThat(rows).as("seed %d: the changes of transaction %d", seed, e.getKey()).hasSize(e.getValue());
            String xid = rows.get(0).transaction();
            for (int i = 1; i < rows.size(); i++) {
                Tagged before = rows.get(i - 1);
                Tagged row = rows.get(i);
                assertThat(row.index()).as("seed %d: changes of %s in order", seed, xid).isEqualTo(before.index() + 1);
                if ((before.index() - 1) / MAX == (row.index() - 1) / MAX) { // no cut before a change MAX * k + 1
                    assertThat(row.checkpoint()).as("seed %d: changes %d and %d of transaction %s (%d changes) in one "
                            + "checkpoint", seed, before.index(), row.index(), xid, e.getValue())
                            .isEqualTo(before.checkpoint());
                }
            }
            assertThat(logs.containing("Transaction " + xid + " has more than " + MAX + " changes"))
                    .as("seed %d: the warnings for transaction %s of %d changes", seed, xid, e.getValue())
                    .hasSize(e.getValue() > MAX ? 1 : 0);
        }
    }

    /** The changes of the transaction the writer numbered {@code tx}, in the order emitted. */
    private static List<Tagged> byTx(Map<String, List<Tagged>> received, int tx) {
        for (List<Tagged> rows : received.values()) {
            if (rows.get(0).tx() == tx) {
                return rows;
            }
        }
        return List.of();
    }

    /** The warnings the reader's transaction cut logs while open (its logger is at INFO in the tests' log4j2 setup). */
    static final class Warnings implements AutoCloseable {
        private static final String LOGGER = "io.rustcdc.flink.source.reader.TransactionCut";
        private final List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
        private final AbstractAppender appender = new AbstractAppender("transaction-cut", null, null, true,
                Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getMessage().getFormattedMessage());
            }
        };

        Warnings() {
            appender.start();
            ((org.apache.logging.log4j.core.Logger) context.getLogger(LOGGER)).addAppender(appender);
        }

        List<String> containing(String text) {
            return lines.stream().filter(l -> l.contains(text)).toList();
        }

        @Override
        public void close() {
            ((org.apache.logging.log4j.core.Logger) context.getLogger(LOGGER)).removeAppender(appender);
            appender.stop();
        }
    }

    /**
     * A change as the sink wrote it: its transaction's id (null for a snapshot row), its index there, the
     * writer's transaction number, and the subtask and the count of checkpoints it had seen.
     */
    record Tagged(String transaction, long index, int tx, int subtask, long checkpoint) {}

    /** Each event as {@code transaction id|index|tx} ({@code -|0|tx} for a snapshot row). */
    static final class Untagged implements ChangeEventDeserializer<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(ChangeEvent event, Collector<String> out) {
            Object tx = event.after().get("tx");
            out.collect(event.transaction() == null ? "-|0|" + tx
                    : event.transaction().id() + "|" + event.transaction().index() + "|" + tx);
        }

        @Override
        public TypeInformation<String> producedType() {
            return Types.STRING;
        }
    }

    /** Tags each row with its subtask and the number of checkpoints (flushes before a barrier) it has seen. */
    static final class CheckpointTaggingSink implements Sink<String> {
        private static final long serialVersionUID = 1L;
        private final String run;

        CheckpointTaggingSink(String run) {
            this.run = run;
        }

        @Override
        public SinkWriter<String> createWriter(WriterInitContext context) {
            BlockingQueue<Tagged> queue = SINKS.get(run);
            int subtask = context.getTaskInfo().getIndexOfThisSubtask();
            return new SinkWriter<>() {
                private long checkpoints;

                @Override
                public void write(String change, Context ctx) {
                    String[] f = change.split("\\|");
                    queue.add(new Tagged(f[0].equals("-") ? null : f[0], Long.parseLong(f[1]), Integer.parseInt(f[2]),
                            subtask, checkpoints));
                }

                @Override
                public void flush(boolean endOfInput) {
                    checkpoints++;
                }

                @Override
                public void close() {}
            };
        }
    }

    /**
     * A source whose first subtask never asks for a split, so that the others read the snapshot and
     * the lowest of them, not the first, takes the stream.
     */
    static final class FirstSubtaskIdle<T, S extends SourceSplit, E> implements Source<T, S, E> {
        private static final long serialVersionUID = 1L;
        private final Source<T, S, E> source;

        FirstSubtaskIdle(Source<T, S, E> source) {
            this.source = source;
        }

        @Override
        public Boundedness getBoundedness() {
            return source.getBoundedness();
        }

        @Override
        public SplitEnumerator<S, E> createEnumerator(SplitEnumeratorContext<S> context) throws Exception {
            return source.createEnumerator(context);
        }

        @Override
        public SplitEnumerator<S, E> restoreEnumerator(SplitEnumeratorContext<S> context, E state) throws Exception {
            return source.restoreEnumerator(context, state);
        }

        @Override
        public SimpleVersionedSerializer<S> getSplitSerializer() {
            return source.getSplitSerializer();
        }

        @Override
        public SimpleVersionedSerializer<E> getEnumeratorCheckpointSerializer() {
            return source.getEnumeratorCheckpointSerializer();
        }

        @Override
        public SourceReader<T, S> createReader(SourceReaderContext context) throws Exception {
            if (context.getIndexOfSubtask() != 0) {
                return source.createReader(context);
            }
            return source.createReader(new SourceReaderContext() {
                @Override
                public SourceReaderMetricGroup metricGroup() {
                    return context.metricGroup();
                }

                @Override
                public Configuration getConfiguration() {
                    return context.getConfiguration();
                }

                @Override
                public String getLocalHostName() {
                    return context.getLocalHostName();
                }

                @Override
                public int getIndexOfSubtask() {
                    return 0;
                }

                @Override
                public void sendSplitRequest() {} // idle

                @Override
                public void sendSourceEventToCoordinator(SourceEvent event) {
                    context.sendSourceEventToCoordinator(event);
                }

                @Override
                public UserCodeClassLoader getUserCodeClassLoader() {
                    return context.getUserCodeClassLoader();
                }

                @Override
                public int currentParallelism() {
                    return context.currentParallelism();
                }
            });
        }
    }
}
