package io.rustcdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.SinkGuarantee;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import io.rustcdc.flink.source.split.TablePlan;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reader that fails over goes back to its last checkpoint, while the enumerator lives on and Flink
 * hands back the splits assigned to it since. Chunks that reader read since are read again, at later
 * marks: a stream split made since that checkpoint must be dropped and made again with those marks,
 * never assigned as it was (its handoff would hold the first marks, and the stream would emit again
 * the changes between the two). The tests play Flink's calls in the order Flink makes them (the reset
 * subtask's splits handed back, the restored reader's events, its registration, its requests), except
 * where a test says it stands in for the stream gate's 10-second fallback (a stream started, or a gate
 * opened, without a checkpoint Flink would restore).
 */
@Timeout(60)
class StreamSplitHandbackTest {
    private static final SourceSettings INITIAL = EnumeratorHarness.settings(StartupMode.initial(), 5);
    private static final TableId B = TableId.of("db", "s", "b");

    @Test
    void aStreamSplitHandedBackIsMadeAgainWithTheMarksOfTheChunksReadAgain() throws Throwable {
        try (EnumeratorHarness h = started(1)) {
            ChunkSplit<Long> c0 = assignedChunk(h, 0);
            report(h, 0, c0.finished(101L));
            ChunkSplit<Long> c1 = assignedChunk(h, 0);
            checkpoint(h, 1); // holds c1 unread in the reader
            report(h, 0, c1.finished(102L));
            ChunkSplit<Long> c2 = assignedChunk(h, 0);
            report(h, 0, c2.finished(103L));
            StreamSplit<?, ?> first = assignedStream(h, 0);
            assertThat(marks(first)).isEqualTo(Map.of(0, 101L, 1, 102L, 2, 103L));

            // subtask 0 fails over to checkpoint 1: c2 and the stream split were assigned since
            reset(h, 0, c2, first);
            restored(h, 0, c1); // read again
            h.enumerator.handleSplitRequest(0, null);
            ChunkSplit<Long> again = assignedChunk(h, 0);
            assertThat(again.splitId()).isEqualTo(c2.splitId());
            report(h, 0, again.finished(105L));
            assertThat(h.assignedTo(0)).as("not while c1 is read again").isEmpty();
            report(h, 0, c1.finished(106L));
            StreamSplit<?, ?> second = assignedStream(h, 0);
            assertThat(marks(second)).isEqualTo(Map.of(0, 101L, 1, 106L, 2, 105L));
            assertThat(second.position()).isEqualTo(first.position());

            assertThat(h.checkpoint(2).finished).as("a restore of this checkpoint finds the split with its reader")
                    .isEmpty();
        }
    }

    @Test
    void aStreamSplitACompletedCheckpointHoldsIsAssignedAgainAsItIs() throws Throwable {
        try (EnumeratorHarness h = started(1)) {
            for (int i = 0; i < 3; i++) {
                report(h, 0, assignedChunk(h, 0).finished(101L + i));
            }
            StreamSplit<?, ?> split = assignedStream(h, 0);
            checkpoint(h, 1);
            // a reader whose checkpoint held the split has it in its state; one handed back is assigned as it is
            h.enumerator.addSplitsBack(List.of(split), 0);
            h.enumerator.handleSplitRequest(0, null);
            assertThat(assignedStream(h, 0)).isSameAs(split);
        }
    }

    @Test
    void theStreamSplitMadeAgainWaitsForACheckpointAfterTheLastChunkAgain() throws Throwable {
        try (EnumeratorHarness h = started(2)) {
            ChunkSplit<Long> c0 = assignedChunk(h, 0);
            ChunkSplit<Long> c1 = assignedChunk(h, 1);
            report(h, 0, c0.finished(101L));
            report(h, 1, c1.finished(102L));
            ChunkSplit<Long> c2 = assignedChunk(h, 0);
            report(h, 0, c2.finished(103L));
            assertThat(h.assignedTo(1)).as("the gate waits for a checkpoint").isEmpty();
            checkpoint(h, 1);
            StreamSplit<?, ?> first = assignedStream(h, 1);

            // both subtasks fail over to checkpoint 1, which holds every chunk read
            reset(h, 0);
            reset(h, 1, first);
            for (int subtask = 0; subtask < 2; subtask++) {
                restored(h, subtask);
                assertThat(h.assignedTo(subtask)).as("the restored readers' records may still be on their way").isEmpty();
            }
            checkpoint(h, 2);
            StreamSplit<?, ?> second = assignedStream(h, 0);
            assertThat(marks(second)).isEqualTo(Map.of(0, 101L, 1, 102L, 2, 103L));
        }
    }

    @Test
    void noStreamSplitIsMadeWhileAFailedReaderIsNotRegisteredAgain() throws Throwable {
        try (EnumeratorHarness h = started(2)) {
            ChunkSplit<Long> c0 = assignedChunk(h, 0);
            ChunkSplit<Long> c1 = assignedChunk(h, 1);
            report(h, 1, c1.finished(101L));
            checkpoint(h, 1); // subtask 0 holds c0 unread
            report(h, 0, c0.finished(102L));
            ChunkSplit<Long> c2 = assignedChunk(h, 1);
            report(h, 1, c2.finished(103L));
            assertThat(h.assignedTo(1)).as("the gate waits for a checkpoint").isEmpty();
            h.enumerator.snapshotState(2);

            // subtask 0 fails over to checkpoint 1; the gate opens (as its fallback would) before it registers again
            reset(h, 0);
            h.enumerator.notifyCheckpointComplete(2);
            assertThat(h.assignedTo(1)).as("subtask 0 has not said which chunks it reads again").isEmpty();

            restored(h, 0, c0);
            assertThat(h.assignedTo(1)).as("not while c0 is read again").isEmpty();
            report(h, 0, c0.finished(104L));
            assertThat(h.assignedTo(1)).as("the gate waits for a checkpoint after c0 again").isEmpty();
            checkpoint(h, 3);
            StreamSplit<?, ?> split = assignedStream(h, 1);
            assertThat(marks(split)).isEqualTo(Map.of(0, 104L, 1, 101L, 2, 103L));
        }
    }

    @Test
    void aCheckpointTakenBeforeTheSplitWasMadeDoesNotHoldIt() throws Throwable {
        try (EnumeratorHarness h = started(1)) {
            for (int i = 0; i < 3; i++) {
                report(h, 0, assignedChunk(h, 0).finished(101L + i));
            }
            h.enumerator.snapshotState(5);
            StreamSplit<?, ?> first = assignedStream(h, 0);
            h.enumerator.snapshotState(6);
            h.enumerator.notifyCheckpointComplete(5); // late: its reader state has no stream split
            h.enumerator.addSplitsBack(List.of(first), 0); // a failover to checkpoint 5
            StreamSplit<?, ?> second = assignedStream(h, 0);
            assertThat(second).as("made again").isNotSameAs(first);
            assertThat(marks(second)).isEqualTo(marks(first));
        }
    }

    @Test
    void chunksReadAgainUnderAStreamThatDidNotFailOverFailTheJobOverAsAWhole() throws Throwable {
        for (boolean handedBack : new boolean[] {false, true}) {
            try (EnumeratorHarness h = started(2)) {
                ChunkSplit<Long> c0 = assignedChunk(h, 0);
                ChunkSplit<Long> c1 = assignedChunk(h, 1);
                checkpoint(h, 1); // subtask 0 holds c0 unread
                report(h, 0, c0.finished(101L));
                report(h, 1, c1.finished(102L));
                ChunkSplit<Long> c2 = assignedChunk(h, 0);
                report(h, 0, c2.finished(103L));
                assertThat(h.assignedTo(1)).as("the gate waits").isEmpty();
                checkpoint(h, 2); // as the gate's fallback would, the stream starts on subtask 1
                assignedStream(h, 1);

                // subtask 0 alone fails over to checkpoint 1 (a failover region of its own): c2 comes back, c0 is
                // read again, under a stream that has gone on since
                h.context.unregisterReader(0);
                h.enumerator.addSplitsBack(handedBack ? List.of(c2) : List.of(), 0);
                h.context.registerReader(new ReaderInfo(0, "localhost"));
                String id = handedBack ? c2.splitId() : c0.splitId();
                assertThatThrownBy(() -> {
                    if (!handedBack) {
                        h.enumerator.handleSourceEvent(0, new ChunksRestoredEvent<>(List.of(c0)));
                    }
                    h.enumerator.addReader(0);
                }).isInstanceOf(IllegalStateException.class).hasMessageContaining(id)
                        .hasMessageContaining("fails over as a whole to its last checkpoint");
            }
        }
    }

    @Test
    void tablesTheDroppedSplitsReaderTookAreHandedToTheNextWithItsAnswer() throws Throwable {
        for (SinkGuarantee sink : SinkGuarantee.values()) {
            tablesHandedAgain(sink);
        }
    }

    private static void tablesHandedAgain(SinkGuarantee sink) throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3);
        SourceSettings settings = CdcSource.builder(new RecordingConnector()).includeTables("db.s.*")
                .startupMode(StartupMode.initial()).chunkSize(5).sinkGuarantee(sink)
                .tableDiscoveryInterval(Duration.ofMinutes(1)).build().settings();
        try (EnumeratorHarness h = new EnumeratorHarness(connector, settings, 1, EnumeratorState.empty())) {
            h.enumerator.start();
            h.runNextCall();
            h.enumerator.handleSplitRequest(0, null);
            h.runAllCalls();
            checkpoint(h, 0); // opens the start gate of an at-least-once sink
            ChunkSplit<Long> c0 = assignedChunk(h, 0);
            checkpoint(h, 1);
            report(h, 0, c0.finished(101L));
            StreamSplit<?, ?> first = assignedStream(h, 0);
            h.enumerator.handleSourceEvent(0, new StreamOwnerEvent(first.tables(), false));
            connector.table("b", 7, 8);
            h.context.runPeriodicCallable(1); // the search for added tables
            h.enumerator.handleSourceEvent(0, new TablesAcceptedEvent(List.of(B)));
            assertThat(h.checkpoint(2).tables).contains(B);

            reset(h, 0, first); // fails over to checkpoint 1: the split and b's snapshot are gone
            restored(h, 0, c0);
            assertThat(h.checkpoint(3).tables).as("until a reader takes it again").doesNotContain(B);
            report(h, 0, c0.finished(102L));
            StreamSplit<?, ?> second = assignedStream(h, 0);
            assertThat(second.tables()).doesNotContain(B);
            assertThat(marks(second)).isEqualTo(Map.of(0, 102L));
            h.enumerator.handleSourceEvent(0, new StreamOwnerEvent(second.tables(), false));
            List<SourceEvent> sent = h.context.getSentSourceEvent().get(0);
            TablesAddedEvent answer = (TablesAddedEvent) sent.get(sent.size() - 1);
            assertThat(answer.tables()).extracting(TablePlan::table).containsExactly(B);
            assertThat(answer.redelivered()).as("the failed attempt may have emitted some of b, into a sink that "
                    + "keeps it").isEqualTo(sink == SinkGuarantee.AT_LEAST_ONCE);
        }
    }

    /** An enumerator at {@code parallelism} past its first start, over table a with keys 1 to 11: three chunks. */
    private static EnumeratorHarness started(int parallelism) throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        EnumeratorHarness h = new EnumeratorHarness(connector, INITIAL, parallelism, EnumeratorState.empty());
        h.enumerator.start();
        h.runNextCall();
        for (int subtask = 0; subtask < parallelism; subtask++) {
            h.enumerator.handleSplitRequest(subtask, null);
        }
        h.runAllCalls();
        return h;
    }

    /** The chunk assigned to {@code subtask} next (it asks for one if none waits for it). */
    @SuppressWarnings("unchecked")
    private static ChunkSplit<Long> assignedChunk(EnumeratorHarness h, int subtask) throws Throwable {
        List<CdcSplit> assigned = h.assignedTo(subtask);
        assertThat(assigned).as("one chunk for subtask " + subtask).hasSize(1);
        assertThat(assigned.get(0)).isInstanceOf(ChunkSplit.class);
        return (ChunkSplit<Long>) assigned.get(0);
    }

    /** The stream split assigned to {@code subtask} next (it asks for a split if none waits for it). */
    private static StreamSplit<?, ?> assignedStream(EnumeratorHarness h, int subtask) throws Throwable {
        List<CdcSplit> assigned = h.assignedTo(subtask);
        assertThat(assigned).as("the stream split for subtask " + subtask).hasSize(1);
        assertThat(assigned.get(0)).isInstanceOf(StreamSplit.class);
        return (StreamSplit<?, ?>) assigned.get(0);
    }

    /** Flink resets {@code subtask} for a failover: its reader is gone, the splits assigned to it since come back. */
    private static void reset(EnumeratorHarness h, int subtask, CdcSplit... handedBack) {
        h.context.unregisterReader(subtask);
        h.enumerator.addSplitsBack(List.of(handedBack), subtask);
    }

    /** The restored reader of {@code subtask} says which chunks it reads again (if any), then registers. */
    @SafeVarargs
    private static void restored(EnumeratorHarness h, int subtask, ChunkSplit<Long>... unread) {
        if (unread.length > 0) {
            h.enumerator.handleSourceEvent(subtask, new ChunksRestoredEvent<>(List.of(unread)));
        }
        h.context.registerReader(new ReaderInfo(subtask, "localhost"));
        h.enumerator.addReader(subtask);
    }

    private static void report(EnumeratorHarness h, int subtask, ChunkSplit<Long> read) throws Throwable {
        h.enumerator.handleSourceEvent(subtask, new ChunksFinishedEvent<>(List.of(read)));
        h.runAllCalls();
    }

    private static void checkpoint(EnumeratorHarness h, long id) throws Throwable {
        h.enumerator.snapshotState(id);
        h.enumerator.notifyCheckpointComplete(id);
        h.runAllCalls();
    }

    /** The marks of the split's handoff chunks, by chunk index. */
    private static Map<Integer, Long> marks(StreamSplit<?, ?> split) {
        Map<Integer, Long> marks = new TreeMap<>();
        split.handoff().forEach(c -> marks.put(c.index(), (Long) c.mark()));
        return marks;
    }
}
