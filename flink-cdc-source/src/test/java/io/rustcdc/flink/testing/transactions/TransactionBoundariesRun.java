package io.rustcdc.flink.testing.transactions;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.TransactionBoundaries;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.testing.LoggerLines;
import io.rustcdc.flink.testing.TaskManagerLoss;
import java.io.Serializable;
import java.sql.Connection;
import java.sql.SQLException;
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
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code scan.transaction-boundaries = preserve} against a connector's real server, on the test's
 * MiniCluster, under TaskManager kills: a two-phase-commit sink whose batches are the rows between two
 * barriers shows every transaction written during the stream, of many sizes (random, seed printed),
 * committed once and in one checkpoint; and ones over the bound ({@value #MAX} changes here) cut only
 * after multiples of the bound, each with its warning. At parallelism 1, or above with the first
 * subtask idle so that another one streams.
 */
public final class TransactionBoundariesRun {
    public static final int MAX = 2000;
    /** The writer's number of the first transaction over the bound; those before are within it. */
    static final int OVER_BOUND = 1000;

    /** What a connector's test gives the run. */
    public interface Target {
        /** A streaming connector for table {@code table}, which is what the include pattern {@link #include} names. */
        CdcConnector<?, ?> connector(String table);

        String include(String table);

        /**
         * Creates {@code table} with an auto-increment key and integer columns {@code tx} and {@code n},
         * and ten rows of tx 0.
         */
        void createTable(String table) throws SQLException;

        /** Waits until the source streams (a change written before would be a snapshot row). */
        void awaitStream(String table) throws Exception;

        Connection connect() throws SQLException;
    }

    private TransactionBoundariesRun() {}

    /**
     * Runs the job into a two-phase-commit sink ({@link CommittingTaggingSink}) and the writes, with {@code
     * cluster}'s only TaskManager killed and replaced twice while the transactions are written (at random
     * moments, from the seed), so that the job restores from its last checkpoint; checks the committed rows
     * and returns the subtask that streamed.
     */
    public static int run(Target target, String name, int parallelism, MiniCluster cluster) throws Exception {
        long seed = System.nanoTime();
        System.out.println("TransactionBoundariesRun " + name + " seed " + seed);
        Random random = new Random(seed);
        Set<Integer> killAfter = new HashSet<>();
        while (killAfter.size() < 2) {
            killAfter.add(10 + random.nextInt(100));
        }
        target.createTable(name);
        CdcSource<String, ?, ?> source = source(target.connector(name), target.include(name));
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 30); // a restart across the lost TM fails
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(50);
        env.fromSource(parallelism > 1 ? new FirstSubtaskIdle<>(source) : source, WatermarkStrategy.noWatermarks(),
                "cdc", Types.STRING).sinkTo(new CommittingTaggingSink(name));
        BlockingQueue<Tagged> sunk = CommittingTaggingSink.queue(name);
        try (LoggerLines logs = new LoggerLines("io.rustcdc.flink.source.reader.TransactionCut")) {
            JobClient job = env.executeAsync(name);
            try {
                target.awaitStream(name);
                awaitSnapshot(sunk);
                Map<Integer, Integer> sizes = new TreeMap<>();
                try (Connection c = target.connect()) {
                    c.setAutoCommit(false);
                    for (int tx = 1; tx <= 120; tx++) {
                        sizes.put(tx, write(c, name, tx, size(random)));
                        if (killAfter.contains(tx)) {
                            TaskManagerLoss.killAndReplace(cluster, Duration.ofMinutes(3));
                            System.out.println("  the TaskManager was killed and replaced after transaction " + tx);
                        }
                    }
                    Map<String, List<Tagged>> received = new HashMap<>();
                    Map<String, List<Tagged>> markers = new HashMap<>();
                    int oversize = OVER_BOUND;
                    // a cut needs a checkpoint to fall in (the sink pauses where one may): write transactions over
                    // the bound until one did
                    for (boolean cut = false; !cut; oversize++) {
                        assertThat(oversize).as("a checkpoint inside one of 10 transactions of 10 times the bound")
                                .isLessThan(OVER_BOUND + 10);
                        sizes.put(oversize, write(c, name, oversize, 10 * MAX));
                        received = awaitAll(sunk, received, markers, sizes);
                        cut = byTx(received, oversize).stream().map(Tagged::checkpoint).distinct().count() > 1;
                    }
                    System.out.println("  a checkpoint fell inside over-bound transaction " + (oversize - OVER_BOUND));
                    check(received, markers, sizes, logs, seed);
                    assertThat(CommittingTaggingSink.writersCreated(name)).as("sink writers: the job was restored")
                            .isGreaterThan(parallelism);
                    Set<Integer> streamed = new HashSet<>();
                    received.values().forEach(rows -> rows.forEach(r -> streamed.add(r.subtask())));
                    assertThat(streamed).as("the subtasks that emitted stream rows").hasSize(1);
                    return streamed.iterator().next();
                }
            } finally {
                job.cancel().get(60, TimeUnit.SECONDS);
            }
        } finally {
            CommittingTaggingSink.forget(name);
        }
    }

    private static <P extends SourcePosition & Comparable<P>, M extends Serializable> CdcSource<String, P, M> source(
            CdcConnector<P, M> connector, String include) {
        return CdcSource.<P, M>builder().connector(connector).includeTables(include)
                .transactionBoundaries(TransactionBoundaries.PRESERVE).transactionMaxChanges(MAX)
                .deserializer(new Untagged()).build();
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
    private static int write(Connection c, String table, int tx, int changes) throws SQLException {
        int inserts = (changes + 1) / 2 + changes / 4;
        try (Statement s = c.createStatement()) {
            for (int from = 1; from <= inserts; from += 1000) {
                StringBuilder sql = new StringBuilder("INSERT INTO ").append(table).append(" (tx, n) VALUES ");
                for (int n = from; n < Math.min(inserts + 1, from + 1000); n++) {
                    sql.append(n == from ? "" : ", ").append('(').append(tx).append(", ").append(n).append(')');
                }
                s.execute(sql.toString());
            }
            s.execute("UPDATE " + table + " SET n = -n WHERE tx = " + tx + " AND n <= " + (changes - inserts));
        }
        c.commit();
        return changes;
    }

    /** Waits for the ten rows of the table's snapshot, so that every change written from now on is streamed. */
    private static void awaitSnapshot(BlockingQueue<Tagged> sunk) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        for (int read = 0; read < 10; ) {
            assertThat(System.nanoTime()).as("the snapshot's 10 rows within 2 minutes; %d so far", read)
                    .isLessThan(deadline);
            Tagged t = sunk.poll(100, TimeUnit.MILLISECONDS);
            if (t != null) {
                assertThat(t.transaction()).as("a snapshot row before any write").isNull();
                read++;
            }
        }
    }

    /**
     * Waits until the sink has every change of each transaction of {@code sizes} and the end marker of
     * each; the changes by transaction id (the markers into {@code markers}, by transaction id).
     */
    private static Map<String, List<Tagged>> awaitAll(BlockingQueue<Tagged> sunk, Map<String, List<Tagged>> received,
            Map<String, List<Tagged>> markers, Map<Integer, Integer> sizes) throws Exception {
        long expected = sizes.values().stream().mapToLong(Integer::longValue).sum();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        long count = received.values().stream().mapToLong(List::size).sum();
        while (count < expected || markers.values().stream().filter(m -> m.size() == 2).count() < received.size()) {
            assertThat(System.nanoTime()).as("all %d changes and the end marker of each transaction within 3 minutes; "
                    + "%d changes so far", expected, count).isLessThan(deadline);
            Tagged t = sunk.poll(100, TimeUnit.MILLISECONDS);
            if (t != null && t.marker()) {
                markers.computeIfAbsent(t.transaction(), k -> new ArrayList<>()).add(t);
            } else if (t != null && t.transaction() != null) {
                received.computeIfAbsent(t.transaction(), k -> new ArrayList<>()).add(t);
                count++;
            }
        }
        return received;
    }

    private static void check(Map<String, List<Tagged>> received, Map<String, List<Tagged>> markers,
            Map<Integer, Integer> sizes, LoggerLines logs, long seed) {
        for (Map.Entry<Integer, Integer> e : sizes.entrySet()) {
            List<Tagged> rows = byTx(received, e.getKey());
            assertThat(rows).as("seed %d: the changes of transaction %d", seed, e.getKey()).hasSize(e.getValue());
            String id = rows.get(0).transaction();
            // its markers: a begin in the checkpoint of its first change, an end with its count in that of its last
            List<Tagged> marks = markers.getOrDefault(id, List.of());
            assertThat(marks).as("seed %d: the markers of transaction %s", seed, id).extracting(Tagged::index)
                    .containsExactly(0L, (long) -e.getValue());
            assertThat(marks.get(0).checkpoint()).as("seed %d: the begin of %s", seed, id)
                    .isEqualTo(rows.get(0).checkpoint());
            assertThat(marks.get(1).checkpoint()).as("seed %d: the end of %s", seed, id)
                    .isEqualTo(rows.get(rows.size() - 1).checkpoint());
            for (int i = 1; i < rows.size(); i++) {
                Tagged before = rows.get(i - 1);
                Tagged row = rows.get(i);
                assertThat(row.index()).as("seed %d: changes of %s in order", seed, id).isEqualTo(before.index() + 1);
                if ((before.index() - 1) / MAX == (row.index() - 1) / MAX) { // no cut before a change MAX * k + 1
                    assertThat(row.checkpoint()).as("seed %d: changes %d and %d of transaction %s (%d changes) in one "
                            + "checkpoint", seed, before.index(), row.index(), id, e.getValue())
                            .isEqualTo(before.checkpoint());
                }
            }
            int warnings = logs.containing("Transaction " + id + " has more than " + MAX + " changes").size();
            // an attempt restored inside a transaction over the bound emits it, and warns, again
            assertThat(warnings).as("seed %d: the warnings for transaction %s of %d changes", seed, id, e.getValue())
                    .isBetween(e.getValue() > MAX ? 1 : 0, e.getValue() > MAX ? 3 : 0);
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
}
