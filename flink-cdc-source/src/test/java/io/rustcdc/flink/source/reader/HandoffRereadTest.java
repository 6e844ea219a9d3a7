package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TablePlan;
import io.rustcdc.flink.source.split.TestPosition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A captured table read again while the stream runs (an on-demand request): downstream already holds
 * its rows, so the handoff leaves out no change of it, and a sink applying the changelog by key ends
 * in the table's state, whatever the order of writes, stream deliveries and chunk reads. Randomized:
 * the seed of a failing run is in its message; {@code -Drustcdc.reread.seed=N} replays it.
 */
class HandoffRereadTest {
    private static final Object[][] BOUNDS = {{null, new Object[] {10L}}, {new Object[] {10L}, new Object[] {20L}},
        {new Object[] {20L}, null}};

    @Test
    void aTableReadAgainEndsInTheTablesStateUnderRandomWritesAndReads() {
        long base = Long.getLong("rustcdc.reread.seed", System.nanoTime());
        int runs = Long.getLong("rustcdc.reread.seed") != null ? 1 : 500;
        for (int run = 0; run < runs; run++) {
            long seed = base + run;
            String failure = runOnce(seed);
            assertThat(failure).as("seed " + seed + " (replay with -Drustcdc.reread.seed=" + seed + ")").isNull();
        }
        System.out.println("HandoffRereadTest: " + runs + " runs from seed " + base);
    }

    @Test
    void aStoppedRereadLeavesTheTableCapturedAndItsChangesPass() {
        Handoff<TestPosition, HashSet<Long>> handoff = new Handoff<>(new HandoffTest.FakeConnector(), List.of(),
                List.of(), false);
        handoff.rereadTable(HandoffTest.T, HandoffTest.KEY);
        ChangeEvent insert = event(Op.INSERT, null, 3, 1);
        assertThat(handoff.decide(insert, new TestPosition(1))).as("no change of a table read again is left out")
                .isSameAs(insert);
        handoff.addChunk(chunk(0).finished(new HashSet<>(Set.of(1L, 2L))).redelivered(), false);
        ChangeEvent reflected = event(Op.INSERT, null, 4, 2);
        assertThat(handoff.decide(reflected, new TestPosition(2))).as("even one its chunk shows").isSameAs(reflected);
        handoff.dropTable(HandoffTest.T);
        assertThat(handoff.isEmpty()).isTrue();
        assertThat(handoff.decide(reflected, new TestPosition(2))).isSameAs(reflected);
    }

    @Test
    void aTableReadAgainBeforeTheStreamPassedItsFirstChunksStillLeavesOutWhatTheyShow() {
        // chunks (-inf, 10] and (10, 20] show position 5, (20, +inf) does not; their handoff ends at 6
        Handoff<TestPosition, HashSet<Long>> handoff = new Handoff<>(new HandoffTest.FakeConnector(),
                HandoffTest.chunks(), List.of(), false);
        handoff.rereadTable(HandoffTest.T, HandoffTest.KEY);
        assertThat(handoff.decide(event(Op.DELETE, 3L, 0, 5), new TestPosition(5)))
                .as("a delete the first chunk shows: downstream never had the row").isNull();
        ChangeEvent unshown = event(Op.INSERT, null, 25, 5);
        assertThat(handoff.decide(unshown, new TestPosition(5))).as("not shown by its chunk").isSameAs(unshown);
        ChangeEvent later = event(Op.DELETE, 3L, 0, 6);
        assertThat(handoff.decide(later, new TestPosition(6))).as("past the first chunks").isSameAs(later);
    }

    @Test
    void aRestoredStreamReadsAgainATableItCapturesThatItWasReadingAgain() {
        ChunkSplit<HashSet<Long>> first = chunk(0).finished(new HashSet<>(Set.of(1L))).redelivered();
        Handoff<TestPosition, HashSet<Long>> handoff = new Handoff<>(new HandoffTest.FakeConnector(), List.of(first),
                List.of(new TablePlan(HandoffTest.T, HandoffTest.KEY, 1, new Object[] {10L})),
                Set.of(HandoffTest.T), false);
        ChangeEvent unread = event(Op.DELETE, 15L, 0, 3);
        assertThat(handoff.decide(unread, new TestPosition(3))).as("a delete of a row downstream holds")
                .isSameAs(unread);
    }

    /** One random run; null when downstream ends equal to the table, else what differs. */
    private static String runOnce(long seed) {
        Random r = new Random(seed);
        Map<Long, Long> table = new TreeMap<>();
        for (long k = 1; k <= 30; k++) {
            if (r.nextBoolean()) {
                table.put(k, 0L);
            }
        }
        Map<Long, Long> downstream = new HashMap<>(table); // captured: downstream holds the table
        List<ChangeEvent> log = new ArrayList<>();
        long[] position = {0};
        int delivered = 0;
        Handoff<TestPosition, HashSet<Long>> handoff = new Handoff<>(new HandoffTest.FakeConnector(), List.of(),
                List.of(), false);
        for (int step = 0; step < 20; step++) {
            write(r, table, log, position); // the table's history before the request
        }
        handoff.rereadTable(HandoffTest.T, HandoffTest.KEY);
        int nextChunk = 0;
        while (nextChunk < BOUNDS.length || delivered < log.size()) {
            int what = r.nextInt(10);
            if (what < 4) {
                write(r, table, log, position);
            } else if (what < 8 && delivered < log.size()) {
                ChangeEvent e = log.get(delivered++);
                ChangeEvent decided = handoff.decide(e, e.source().position() instanceof TestPosition p ? p : null);
                if (decided != null) {
                    apply(downstream, decided);
                }
            } else if (nextChunk < BOUNDS.length) {
                // a chunk reads the table as it is now, which the stream may not have delivered yet
                HashSet<Long> mark = new HashSet<>();
                for (long p = 1; p <= position[0]; p++) {
                    mark.add(p);
                }
                ChunkSplit<HashSet<Long>> chunk = chunk(nextChunk);
                for (Map.Entry<Long, Long> row : table.entrySet()) {
                    if (chunk.contains(new Object[] {row.getKey()})) {
                        downstream.put(row.getKey(), row.getValue()); // a row read goes out again
                    }
                }
                handoff.addChunk(chunk.finished(mark).redelivered(), nextChunk == BOUNDS.length - 1);
                nextChunk++;
            }
        }
        return downstream.equals(table) ? null : "downstream " + new TreeMap<>(downstream) + ", table " + table;
    }

    private static ChunkSplit<HashSet<Long>> chunk(int index) {
        return ChunkSplit.of(HandoffTest.T, HandoffTest.KEY, index, (Object[]) BOUNDS[index][0],
                (Object[]) BOUNDS[index][1]);
    }

    /** One random insert, update, key move or delete on the table, logged at the next position. */
    private static void write(Random r, Map<Long, Long> table, List<ChangeEvent> log, long[] position) {
        long key = 1 + r.nextInt(30);
        long p = ++position[0];
        Long current = table.get(key);
        if (current == null) {
            table.put(key, p);
            log.add(event(Op.INSERT, null, key, p));
        } else if (r.nextInt(3) == 0) {
            table.remove(key);
            log.add(event(Op.DELETE, key, 0, p));
        } else if (r.nextBoolean()) {
            long to = 1 + r.nextInt(30);
            if (table.containsKey(to) && to != key) {
                position[0]--;
                return;
            }
            table.remove(key);
            table.put(to, p);
            log.add(event(Op.UPDATE, key, to, p));
        } else {
            table.put(key, p);
            log.add(event(Op.UPDATE, key, key, p));
        }
    }

    private static ChangeEvent event(Op op, Long before, long after, long position) {
        ChangeEvent.Builder b = ChangeEvent.builder(op, HandoffTest.T,
                SourceInfo.stream("x", new TestPosition(position), null));
        if (before != null) {
            b.before(Row.of(HandoffTest.TYPE, before, "v"));
        }
        if (op != Op.DELETE) {
            b.after(Row.of(HandoffTest.TYPE, after, Long.toString(position)));
        }
        return b.build();
    }

    private static void apply(Map<Long, Long> downstream, ChangeEvent e) {
        switch (e.op()) {
            case INSERT:
                downstream.put((Long) e.after().get("id"), Long.parseLong((String) e.after().get("v")));
                break;
            case UPDATE:
                downstream.remove((Long) e.before().get("id"));
                downstream.put((Long) e.after().get("id"), Long.parseLong((String) e.after().get("v")));
                break;
            case DELETE:
                downstream.remove((Long) e.before().get("id"));
                break;
            default:
                throw new AssertionError("unexpected " + e);
        }
    }
}
