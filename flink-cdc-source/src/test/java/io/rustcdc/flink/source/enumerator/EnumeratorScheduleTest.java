package io.rustcdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import io.rustcdc.flink.source.split.TestPosition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Random schedules of what the coordinator sees: readers asking, reading and reporting chunks, the
 * worker's calls running late, rows inserted while chunks are planned, checkpoints, and restores
 * from a checkpoint taken at any of these moments (while planning, too). Whatever the order, the
 * chunks the stream split's handoff carries cover every key of every table exactly once, in
 * contiguous ranges, and no database call runs on the coordinator thread. The seed is printed;
 * {@code -Drustcdc.enumerator.seed=N} replays a run.
 */
@Timeout(120)
class EnumeratorScheduleTest {
    private static final int SCHEDULES = 100;

    @Test
    void everyScheduleCoversEveryKeyOnce() throws Throwable {
        long seed = Long.getLong("rustcdc.enumerator.seed", new Random().nextLong());
        System.out.println("EnumeratorScheduleTest seed " + seed + " (replay: -Drustcdc.enumerator.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int i = 0; i < SCHEDULES; i++) {
            long scheduleSeed = random.nextLong();
            try {
                runSchedule(new Random(scheduleSeed));
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("schedule " + i + " of seed " + seed + " failed: " + e.getMessage(), e);
            }
        }
    }

    private void runSchedule(Random random) throws Throwable {
        RecordingConnector connector = new RecordingConnector();
        int tableCount = 1 + random.nextInt(3);
        for (int t = 0; t < tableCount; t++) {
            long[] keys = random.longs(random.nextInt(40), -1_000, 1_000).toArray();
            connector.table("t" + t, keys);
        }
        int parallelism = 1 + random.nextInt(4);
        SourceSettings settings = EnumeratorHarness.settings(StartupMode.initial(), 2 + random.nextInt(7));
        long checkpointId = 0;

        EnumeratorHarness h = new EnumeratorHarness(connector, settings, parallelism, EnumeratorState.empty());
        Set<Thread> coordinatorThreads = new HashSet<>(h.coordinatorThreads);
        h.enumerator.start();
        Map<Integer, ChunkSplit<Long>> held = new HashMap<>(); // what each reader reads now
        Set<Integer> asking = new HashSet<>();
        StreamSplit<?, ?> stream = null;
        for (int step = 0; stream == null; step++) {
            if (step > 20_000) {
                throw new AssertionError("no stream split after 20000 steps");
            }
            int action = random.nextInt(100);
            int reader = random.nextInt(parallelism);
            if (action < 25) {
                if (!held.containsKey(reader) && asking.add(reader)) {
                    h.enumerator.handleSplitRequest(reader, null);
                }
            } else if (action < 55) {
                if (h.pendingCalls() > 0) {
                    h.runNextCall();
                }
            } else if (action < 80) {
                ChunkSplit<Long> chunk = held.remove(reader);
                if (chunk != null) {
                    h.enumerator.handleSourceEvent(reader, new ChunksFinishedEvent<>(List.of(
                            chunk.finished(connector.position.incrementAndGet()))));
                }
            } else if (action < 88) {
                TableId table = new ArrayList<>(connector.tables.keySet()).get(random.nextInt(tableCount));
                synchronized (connector.tables) {
                    connector.tables.get(table).add((long) random.nextInt(2_000) - 1_000);
                }
            } else if (action < 96) {
                h.enumerator.snapshotState(++checkpointId);
                h.enumerator.notifyCheckpointComplete(checkpointId);
            } else {
                // a failover to the checkpoint taken now: the readers hold what the enumerator had assigned
                EnumeratorState<TestPosition, Long> state = h.checkpoint(++checkpointId);
                h.close();
                h = new EnumeratorHarness(connector, settings, parallelism, state);
                coordinatorThreads.addAll(h.coordinatorThreads);
                held.clear();
                asking.clear();
                List<ChunkSplit<Long>> inFlight = state.inFlight;
                for (int c = 0; c < inFlight.size(); c++) {
                    held.merge(c % parallelism, inFlight.get(c), (a, b) -> {
                        throw new AssertionError("more chunks in flight than readers: " + inFlight);
                    });
                }
                h.enumerator.start();
            }
            for (Map.Entry<Integer, CdcSplit> a : h.newAssignments()) {
                assertThat(asking.remove(a.getKey())).as("assigned to a reader that asked").isTrue();
                if (a.getValue() instanceof StreamSplit<?, ?> s) {
                    stream = s;
                } else {
                    @SuppressWarnings("unchecked")
                    ChunkSplit<Long> chunk = (ChunkSplit<Long>) a.getValue();
                    assertThat(held.put(a.getKey(), chunk)).as("one chunk per reader at a time").isNull();
                }
            }
        }
        assertThat(held).as("the stream starts once every chunk is read").isEmpty();
        assertCovers(connector, stream);
        h.close();
        assertThat(connector.sessionsOpen).as("sessions left open").hasValue(0);
        assertThat(connector.calls).extracting(RecordingConnector.Call::thread).doesNotContainAnyElementsOf(
                coordinatorThreads);
    }

    /** The handoff's chunks of each table: indices 0..n-1, contiguous from the open start to the open end, each key in one. */
    @SuppressWarnings("unchecked")
    static void assertCovers(RecordingConnector connector, StreamSplit<?, ?> stream) {
        assertThat(stream.position()).isEqualTo(new TestPosition(100));
        for (Map.Entry<TableId, NavigableSet<Long>> table : connector.tables.entrySet()) {
            List<ChunkSplit<Long>> chunks = new ArrayList<>();
            for (ChunkSplit<?> c : stream.handoff()) {
                if (c.table().equals(table.getKey())) {
                    chunks.add((ChunkSplit<Long>) c);
                }
            }
            chunks.sort(Comparator.comparingInt(ChunkSplit::index));
            assertThat(chunks).as("chunks of %s", table.getKey()).isNotEmpty();
            for (int i = 0; i < chunks.size(); i++) {
                ChunkSplit<Long> c = chunks.get(i);
                assertThat(c.index()).as("chunk numbers of %s", table.getKey()).isEqualTo(i);
                assertThat(c.after()).as("start of chunk %s", c).isEqualTo(i == 0 ? null : chunks.get(i - 1).upTo());
            }
            assertThat(chunks.get(chunks.size() - 1).upTo()).as("the last chunk is open").isNull();
            for (long key : table.getValue()) {
                assertThat(chunks.stream().filter(c -> c.contains(new Object[] {key})).count())
                        .as("chunks holding key %s of %s", key, table.getKey()).isEqualTo(1);
            }
        }
    }
}
