package io.rustcdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Random schedules of a job whose readers fail over together (one failover region, as with a collect
 * sink) while the enumerator lives on, played in the order Flink makes its calls: readers asking,
 * reading and reporting chunks (each read at a newer position), checkpoints taken and completed (some
 * late, some never), and failovers to the last completed checkpoint at any moment, also after the
 * stream split was made. Flink's side is modelled as its {@code SplitAssignmentTracker} and {@code
 * SourceOperator} do it: the splits assigned since the restored checkpoint are handed back, the readers
 * come back with what that checkpoint held of them, say which chunks they read again, and register.
 *
 * <p>Judged against what survives: the snapshot rows a failover did not roll back. Every chunk must have
 * been emitted exactly once in them, and the stream split that a completed checkpoint holds in the end
 * must carry, for every chunk, the position of the read whose rows survive, the chunks covering every key
 * once. Not played: a reader failing over alone (a failover region of its own), the stream gate's 10 s
 * fallback, tables added while streaming. The seed is printed; {@code -Drustcdc.failover.seed=N} replays a run.
 */
@Timeout(120)
class RegionFailoverScheduleTest {
    private static final int SCHEDULES = 200;

    @Test
    void theStreamSplitAlwaysCarriesThePositionsOfTheReadsThatSurvive() throws Throwable {
        long seed = Long.getLong("rustcdc.failover.seed", new Random().nextLong());
        System.out.println("RegionFailoverScheduleTest seed " + seed + " (replay: -Drustcdc.failover.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int i = 0; i < SCHEDULES; i++) {
            long scheduleSeed = random.nextLong();
            try (Schedule schedule = new Schedule(new Random(scheduleSeed))) {
                schedule.run();
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("schedule " + i + " of seed " + seed + " failed: " + e.getMessage(), e);
            }
        }
    }

    /** One read of a chunk, emitted: its rows go out with its mark. */
    private record Read(String chunk, long mark) {}

    /** What a checkpoint holds: the enumerator's state is in the enumerator; here the readers' and the output's. */
    private record Checkpoint(long id, int emitted, Map<Integer, ChunkSplit<Long>> unread, int streamHolder) {}

    /** A split assigned to a reader after the checkpoint {@code after} was taken (Flink's assignment tracker). */
    private record Assignment(long after, int reader, CdcSplit split) {}

    private static final class Schedule implements AutoCloseable {
        private final Random random;
        private final RecordingConnector connector = new RecordingConnector();
        private final int parallelism;
        private final EnumeratorHarness h;
        /** The chunk each reader reads now (assigned, not yet emitted). */
        private final Map<Integer, ChunkSplit<Long>> unread = new HashMap<>();
        private final Set<Integer> asking = new HashSet<>();
        private int streamHolder = -1;
        @Nullable private StreamSplit<?, ?> stream;
        private final List<Read> emitted = new ArrayList<>();
        /** Every chunk ever assigned: the stream split is made only once none is left unassigned. */
        private final Set<String> planned = new HashSet<>();
        private final List<Checkpoint> taken = new ArrayList<>();
        @Nullable private Checkpoint lastCompleted;
        private final List<Assignment> assignments = new ArrayList<>();
        private long checkpointId;
        /** Whether the stream split assigned last is held by a completed checkpoint. */
        private boolean streamHeld;

        Schedule(Random random) {
            this.random = random;
            int tables = 1 + random.nextInt(3);
            for (int t = 0; t < tables; t++) {
                connector.table("t" + t, random.longs(1 + random.nextInt(40), -1_000, 1_000).toArray());
            }
            this.parallelism = 1 + random.nextInt(3);
            SourceSettings settings = EnumeratorHarness.settings(StartupMode.initial(), 2 + random.nextInt(7));
            this.h = new EnumeratorHarness(connector, settings, parallelism, EnumeratorState.empty());
        }

        void run() throws Throwable {
            h.enumerator.start();
            h.runNextCall(); // the first start
            // once a checkpoint holds the stream split, a few more steps: failovers then restore it with its reader
            int stepsHeld = 0;
            for (int step = 0; !streamHeld || stepsHeld++ < 30; step++) {
                if (step > 20_000) {
                    throw new AssertionError("no stream split a checkpoint holds after 20000 steps");
                }
                int action = random.nextInt(100);
                int reader = random.nextInt(parallelism);
                if (action < 25) {
                    if (!unread.containsKey(reader) && reader != streamHolder && asking.add(reader)) {
                        h.enumerator.handleSplitRequest(reader, null);
                    }
                } else if (action < 50) {
                    if (h.pendingCalls() > 0) {
                        h.runNextCall();
                    }
                } else if (action < 75) {
                    ChunkSplit<Long> chunk = unread.remove(reader);
                    if (chunk != null) {
                        long mark = connector.position.incrementAndGet();
                        emitted.add(new Read(chunk.splitId(), mark));
                        h.enumerator.handleSourceEvent(reader, new ChunksFinishedEvent<>(List.of(chunk.finished(mark))));
                    }
                } else if (action < 88) {
                    takeCheckpoint(random.nextInt(10) < 7);
                } else if (action < 94) {
                    completeLate();
                } else {
                    failOver();
                }
                takeAssignments();
            }
            judge();
        }

        private void takeCheckpoint(boolean complete) {
            checkpointId++;
            h.enumerator.snapshotState(checkpointId);
            taken.add(new Checkpoint(checkpointId, emitted.size(), new HashMap<>(unread), streamHolder));
            if (complete) {
                complete(taken.get(taken.size() - 1));
            }
        }

        /** A checkpoint taken earlier completes now, if one is pending and newer than the last completed. */
        private void completeLate() {
            for (Checkpoint c : taken) {
                if (lastCompleted == null || c.id() > lastCompleted.id()) {
                    complete(c);
                    return;
                }
            }
        }

        private void complete(Checkpoint c) {
            lastCompleted = c;
            assignments.removeIf(a -> a.after() < c.id()); // Flink forgets assignments a completed checkpoint holds
            h.enumerator.notifyCheckpointComplete(c.id());
            streamHeld = c.streamHolder() >= 0;
        }

        /** Every reader fails over to the last completed checkpoint (or, with none, to nothing). */
        private void failOver() {
            long restored = lastCompleted == null ? 0 : lastCompleted.id();
            taken.removeIf(c -> c.id() > restored); // Flink aborts pending checkpoints
            for (int r = 0; r < parallelism; r++) {
                h.context.unregisterReader(r);
                int reader = r;
                h.enumerator.addSplitsBack(assignments.stream().filter(a -> a.reader() == reader)
                        .map(Assignment::split).toList(), reader);
            }
            assignments.clear();
            emitted.subList(lastCompleted == null ? 0 : lastCompleted.emitted(), emitted.size()).clear();
            unread.clear();
            asking.clear();
            streamHolder = lastCompleted == null ? -1 : lastCompleted.streamHolder();
            if (lastCompleted != null) {
                unread.putAll(lastCompleted.unread());
            }
            // the readers come back one by one, in any order; one that reads nothing may ask before the next is back
            List<Integer> order = new ArrayList<>();
            for (int r = 0; r < parallelism; r++) {
                order.add(r);
            }
            Collections.shuffle(order, random);
            for (int r : order) {
                ChunkSplit<Long> again = unread.get(r);
                if (again != null) {
                    h.enumerator.handleSourceEvent(r, new ChunksRestoredEvent<>(List.of(again)));
                }
                h.context.registerReader(new ReaderInfo(r, "localhost"));
                h.enumerator.addReader(r);
                if (again == null && r != streamHolder && random.nextBoolean() && asking.add(r)) {
                    h.enumerator.handleSplitRequest(r, null);
                }
            }
        }

        private void takeAssignments() {
            for (Map.Entry<Integer, CdcSplit> a : h.newAssignments()) {
                int reader = a.getKey();
                assertThat(asking.remove(reader)).as("assigned to a reader that asked").isTrue();
                assignments.add(new Assignment(checkpointId, reader, a.getValue()));
                planned.add(a.getValue().splitId());
                if (a.getValue() instanceof StreamSplit<?, ?> s) {
                    assertThat(streamHolder).as("one stream split at a time").isEqualTo(-1);
                    assertThat(unread).as("the stream split once every chunk is read").isEmpty();
                    stream = s;
                    streamHolder = reader;
                } else {
                    @SuppressWarnings("unchecked")
                    ChunkSplit<Long> chunk = (ChunkSplit<Long>) a.getValue();
                    assertThat(unread.put(reader, chunk)).as("one chunk per reader at a time").isNull();
                }
            }
        }

        private void judge() {
            Map<String, Long> survived = new HashMap<>();
            for (Read read : emitted) {
                assertThat(survived.put(read.chunk(), read.mark())).as("chunk %s emitted twice in what survives: %s",
                        read.chunk(), emitted).isNull();
            }
            Map<String, Long> carried = new HashMap<>();
            for (ChunkSplit<?> c : stream.handoff()) {
                carried.put(c.splitId(), (Long) c.mark());
            }
            assertThat(carried).as("the positions the stream split carries, by chunk").isEqualTo(survived);
            planned.remove(stream.splitId());
            assertThat(survived.keySet()).as("every chunk's rows survive").isEqualTo(planned);
            EnumeratorScheduleTest.assertCovers(connector, stream);
        }

        @Override
        public void close() throws Exception {
            h.close();
        }
    }
}
