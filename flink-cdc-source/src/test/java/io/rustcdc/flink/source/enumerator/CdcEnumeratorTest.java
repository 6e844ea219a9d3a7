package io.rustcdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.FinalFailure;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import io.rustcdc.flink.source.split.TestPosition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The enumerator does its database work on the worker thread of {@code callAsync} and changes its
 * state only in the handlers, on the coordinator thread.
 */
@Timeout(60)
class CdcEnumeratorTest {
    private static final SourceSettings INITIAL = EnumeratorHarness.settings(StartupMode.initial(), 5);

    @Test
    void startDoesNoDatabaseWorkOnTheCoordinatorThread() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        try (EnumeratorHarness h = new EnumeratorHarness(connector, INITIAL, 2, EnumeratorState.empty())) {
            h.enumerator.start();
            h.enumerator.handleSplitRequest(0, null);
            assertThat(connector.calls).isEmpty();
            assertThat(h.newAssignments()).isEmpty();

            h.runNextCall(); // the first start: discovery, prerequisites, stream, descriptions
            assertThat(connector.calls).extracting(RecordingConnector.Call::name).containsExactly("openSession",
                    "discoverTables", "checkSnapshotPrerequisites", "prepareStream", "describe");
            assertThat(h.newAssignments()).as("answered once a chunk is planned").isEmpty();

            h.runNextCall(); // planning
            List<Map.Entry<Integer, CdcSplit>> assigned = h.newAssignments();
            assertThat(assigned).hasSize(1);
            assertThat(assigned.get(0).getKey()).isZero();
            ChunkSplit<?> chunk = (ChunkSplit<?>) assigned.get(0).getValue();
            assertThat(chunk.after()).isNull();
            assertThat(chunk.upTo()).containsExactly(5L);
            assertOnOneWorkerThread(h, connector);
        }
    }

    @Test
    void requestsWhilePlanningAreAnsweredWhenItEnds() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                14, 15, 16, 17, 18, 19, 20);
        try (EnumeratorHarness h = new EnumeratorHarness(connector, INITIAL, 3, EnumeratorState.empty())) {
            h.enumerator.start();
            h.runNextCall();
            h.enumerator.handleSplitRequest(0, null);
            h.enumerator.handleSplitRequest(1, null);
            h.enumerator.handleSplitRequest(2, null);
            assertThat(h.pendingCalls()).as("one planning call for the three").isEqualTo(1);
            assertThat(h.newAssignments()).isEmpty();

            h.runNextCall();
            List<Map.Entry<Integer, CdcSplit>> assigned = h.newAssignments();
            assertThat(assigned).extracting(Map.Entry::getKey).containsExactly(0, 1, 2);
            assertThat(connector.callsNamed("nextChunkEnd")).hasSize(3);

            List<ChunkSplit<Long>> read = new ArrayList<>();
            StreamSplit<?, ?> stream = drive(h, assigned, read);
            assertThat(read).extracting(ChunkSplit::index).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
            assertThat(stream.position()).isEqualTo(new TestPosition(100));
            assertThat(stream.handoff()).hasSize(5);
            assertThat(connector.sessionsOpen).as("the session is closed once every chunk is planned").hasValue(0);
            assertOnOneWorkerThread(h, connector);
        }
    }

    @Test
    void aCheckpointWhilePlanningHoldsThePlanAsItWasAndARestorePlansAgain() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
        EnumeratorState<TestPosition, Long> state;
        try (EnumeratorHarness h = new EnumeratorHarness(connector, INITIAL, 1, EnumeratorState.empty())) {
            h.enumerator.start();
            h.runNextCall();
            h.enumerator.handleSplitRequest(0, null);
            assertThat(h.pendingCalls()).isEqualTo(1); // planning, not run: the checkpoint comes first
            state = h.checkpoint(1);
        }
        assertThat(state.initialized).isTrue();
        assertThat(state.plans).hasSize(1);
        assertThat(state.plans.get(0).nextIndex()).isZero();
        assertThat(state.plans.get(0).nextAfter()).isNull();
        assertThat(state.unassigned).isEmpty();
        assertThat(state.inFlight).isEmpty();
        assertThat(connector.sessionsOpen).as("closing closes the session").hasValue(0);

        RecordingConnector again = new RecordingConnector().table("a", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
        try (EnumeratorHarness h = new EnumeratorHarness(again, INITIAL, 1, state)) {
            h.enumerator.start();
            h.enumerator.handleSplitRequest(0, null);
            h.runAllCalls(); // added tables (none), then planning
            List<ChunkSplit<Long>> read = new ArrayList<>();
            StreamSplit<?, ?> stream = drive(h, h.newAssignments(), read);
            assertThat(read).extracting(ChunkSplit::index).containsExactly(0, 1, 2);
            assertThat(read.get(0).after()).isNull();
            assertThat(read.get(0).upTo()).containsExactly(5L);
            assertThat(read.get(1).upTo()).containsExactly(10L);
            assertThat(read.get(2).upTo()).isNull();
            assertThat(stream.handoff()).hasSize(3);
            assertThat(again.callsNamed("discoverTables")).as("added tables are looked for").hasSize(1);
            assertOnOneWorkerThread(h, again);
        }
    }

    @Test
    void afterARestoreTablesAddedSinceJoinTheSnapshotBeforeAnySplitIsHandedOut() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3);
        EnumeratorState<TestPosition, Long> state;
        try (EnumeratorHarness h = new EnumeratorHarness(connector, INITIAL, 1, EnumeratorState.empty())) {
            h.enumerator.start();
            h.runNextCall();
            state = h.checkpoint(1);
        }
        RecordingConnector grown = new RecordingConnector().table("a", 1, 2, 3).table("b", 7, 8);
        try (EnumeratorHarness h = new EnumeratorHarness(grown, INITIAL, 1, state)) {
            h.enumerator.start();
            h.enumerator.handleSplitRequest(0, null);
            assertThat(grown.calls).isEmpty();
            assertThat(h.newAssignments()).as("not before the added tables are known").isEmpty();
            h.runNextCall();
            assertThat(grown.calls).extracting(RecordingConnector.Call::name).containsExactly("openSession",
                    "discoverTables", "checkSnapshotPrerequisites", "prepareStream", "describe");
            h.runAllCalls();
            List<ChunkSplit<Long>> read = new ArrayList<>();
            StreamSplit<?, ?> stream = drive(h, h.newAssignments(), read);
            assertThat(read).extracting(c -> c.table().table()).containsExactly("a", "b");
            assertThat(stream.tables()).extracting(t -> t.table()).containsExactlyInAnyOrder("a", "b");
            assertOnOneWorkerThread(h, grown);
        }
    }

    /**
     * A table whose chunk key changed after the first start described it and before any of its chunks was planned (it
     * waited behind another table) is planned with its key as it is then, not failed; once a chunk of a table is
     * planned its key is kept (a change of its type or collation then fails the chunks' reads, which the readers check).
     */
    @Test
    void aKeyChangedBeforeItsTableIsPlannedIsTakenAsTheTableIsThen() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3, 4, 5, 6).table("b", 1, 2, 3, 4, 5, 6);
        try (EnumeratorHarness h = new EnumeratorHarness(connector, INITIAL, 1, EnumeratorState.empty())) {
            h.enumerator.start();
            h.runNextCall(); // the first start describes both tables
            h.enumerator.handleSplitRequest(0, null);
            h.runNextCall(); // a's first chunk
            List<Map.Entry<Integer, CdcSplit>> first = h.newAssignments();
            assertThat(((ChunkSplit<?>) first.get(0).getValue()).table().table()).isEqualTo("a");
            // both keys made nullable (not splittable): a's once its first chunk is planned, b's before any of its
            connector.altered.put("a", nullableKey(TableId.of("db", "s", "a")));
            connector.altered.put("b", nullableKey(TableId.of("db", "s", "b")));
            int describes = connector.callsNamed("describe").size();
            List<ChunkSplit<Long>> read = new ArrayList<>();
            drive(h, first, read);
            assertThat(read).filteredOn(c -> c.table().table().equals("a")).as("a's key kept").hasSize(2)
                    .allSatisfy(c -> assertThat(c.key().nullable()).isFalse());
            assertThat(read).filteredOn(c -> c.table().table().equals("b")).singleElement().satisfies(c -> {
                assertThat(c.key().nullable()).as("b's key as b is now").isTrue();
                assertThat(c.after()).isNull();
                assertThat(c.upTo()).as("one chunk of the whole table: its key not splittable now").isNull();
            });
            assertThat(connector.callsNamed("describe")).as("b described again before its first chunk, a not")
                    .hasSize(describes + 1);
        }
    }

    /** A waiting table's primary key dropped: its planning fails, saying the key changed before its first chunk. */
    @Test
    void aKeyDroppedBeforeItsTableIsPlannedFailsSayingSo() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3);
        try (EnumeratorHarness h = new EnumeratorHarness(connector, INITIAL, 1, EnumeratorState.empty())) {
            h.enumerator.start();
            h.runNextCall();
            TableId a = TableId.of("db", "s", "a");
            RowShape shape = RowShape.of("s", "a", List.of(RowShape.Column.of("id", "bigint", false),
                    RowShape.Column.of("v", "text", true)), List.of());
            connector.altered.put("a", TableDescription.of(a, shape, RowType.of(List.of("id", "v"),
                    List.of(ValueType.of(ValueKind.BIGINT), ValueType.of(ValueKind.TEXT)))));
            h.enumerator.handleSplitRequest(0, null);
            assertThatThrownBy(h::runNextCall).isInstanceOf(FinalFailure.class)
                    .hasMessageContaining("The chunk key of table s.a changed before any of its chunks was planned "
                            + "(columns [id] to [])")
                    .hasMessageContaining("has no primary key")
                    .satisfies(e -> assertThat(((FinalFailure) e).kind()).isEqualTo(CdcException.Kind.CONFIGURATION));
        }
    }

    private static TableDescription nullableKey(TableId table) {
        RowShape shape = RowShape.of(table.schema(), table.table(), List.of(RowShape.Column.of("id", "bigint", true),
                RowShape.Column.of("v", "text", true)), List.of("id"));
        return TableDescription.of(table, shape, RowType.of(List.of("id", "v"),
                List.of(ValueType.of(ValueKind.BIGINT), ValueType.of(ValueKind.TEXT))));
    }

    @Test
    void aFailedFirstStartFailsTheJobWithItsKindAndMessage() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1);
        connector.failures.put("prepareStream", new CdcException(CdcException.Kind.PREREQUISITE,
                "wal_level is replica; set it to logical"));
        try (EnumeratorHarness h = new EnumeratorHarness(connector, INITIAL, 1, EnumeratorState.empty())) {
            h.enumerator.start();
            assertThatThrownBy(h::runNextCall).isInstanceOf(FinalFailure.class)
                    .hasMessage("wal_level is replica; set it to logical")
                    .satisfies(e -> assertThat(((FinalFailure) e).kind()).isEqualTo(CdcException.Kind.PREREQUISITE));
            assertThat(connector.sessionsOpen).as("a failed call closes its session").hasValue(0);
        }
        RecordingConnector empty = new RecordingConnector();
        try (EnumeratorHarness h = new EnumeratorHarness(empty, INITIAL, 1, EnumeratorState.empty())) {
            h.enumerator.start();
            assertThatThrownBy(h::runNextCall).isInstanceOf(FinalFailure.class)
                    .hasMessageContaining("No table of the recording source matches")
                    .satisfies(e -> assertThat(((FinalFailure) e).kind()).isEqualTo(CdcException.Kind.CONFIGURATION));
        }
    }

    @Test
    void aConnectionFailureWhilePlanningIsNotFinal() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3, 4, 5, 6, 7);
        CdcException lost = new CdcException(CdcException.Kind.CONNECTION, "connection reset");
        connector.failures.put("nextChunkEnd", lost);
        try (EnumeratorHarness h = new EnumeratorHarness(connector, INITIAL, 1, EnumeratorState.empty())) {
            h.enumerator.start();
            h.runNextCall();
            h.enumerator.handleSplitRequest(0, null);
            assertThatThrownBy(h::runNextCall).as("restarted by the restart strategy").isSameAs(lost);
            assertThat(connector.sessionsOpen).hasValue(0);
            assertThat(h.enumerator.snapshotState(1).plans).as("the plan is as it was").hasSize(1);
        }
    }

    /**
     * A chunk end equal to the one before (a key decoded otherwise than the database compares it) fails the snapshot
     * for good, naming the table, instead of planning the same empty chunk forever.
     */
    @Test
    void aChunkEndThatDoesNotAdvanceFailsTheSnapshotInsteadOfPlanningForever() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
        connector.stuckEnds = true;
        try (EnumeratorHarness h = new EnumeratorHarness(connector, INITIAL, 1, EnumeratorState.empty())) {
            h.enumerator.start();
            h.runNextCall();
            assertThatThrownBy(() -> {
                for (int i = 0; i < 5; i++) {
                    h.enumerator.handleSplitRequest(0, null);
                    h.runAllCalls();
                }
            }).isInstanceOf(FinalFailure.class)
                    .hasMessageContaining("Table s.a cannot be read on in chunks of its key [id]")
                    .hasMessageContaining("Restart the job without its state")
                    .satisfies(e -> assertThat(((FinalFailure) e).kind()).isEqualTo(CdcException.Kind.STATE));
        }
    }

    /** A first start that streams fails; a bounded snapshot, which has no stream, does not ask. */
    @Test
    void aTableWhoseOldRowsMayLackItsChunkKeyFailsAFirstStartThatStreams() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2);
        connector.oldRowProblems.put("a", "its log keeps only v");
        try (EnumeratorHarness h = new EnumeratorHarness(connector, INITIAL, 1, EnumeratorState.empty())) {
            h.enumerator.start();
            assertThatThrownBy(h::runNextCall).isInstanceOf(FinalFailure.class)
                    .hasMessageContaining("The chunk key [id] of table s.a (its primary key) is not in every old row of "
                            + "its updates and deletes in the recording change stream: its log keeps only v.")
                    .hasMessageEndingWith("Make the old rows carry the key as said.")
                    .satisfies(e -> assertThat(((FinalFailure) e).kind()).isEqualTo(CdcException.Kind.PREREQUISITE));
        }
        try (EnumeratorHarness h = new EnumeratorHarness(connector, EnumeratorHarness.settings(StartupMode.snapshot(), 5),
                1, EnumeratorState.empty())) {
            h.enumerator.start();
            h.runNextCall();
            assertThat(h.checkpoint(1).plans).extracting(p -> p.table().table()).containsExactly("a");
        }
    }

    /** Found while streaming, it is left out with a WARN, and captured once its old rows carry the key. */
    @Test
    void aTableFoundWhileStreamingWhoseOldRowsMayLackItsChunkKeyIsLeftForLater() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1);
        try (EnumeratorHarness h = streaming(connector)) {
            connector.table("b", 1, 2);
            connector.oldRowProblems.put("b", "its log keeps only v");
            h.context.runPeriodicCallable(1);
            assertThat(h.checkpoint(1).tables).extracting(TableId::table).containsExactly("a");
            connector.oldRowProblems.clear();
            h.context.runPeriodicCallable(1);
            assertThat(h.checkpoint(2).tables).extracting(TableId::table).containsExactlyInAnyOrder("a", "b");
        }
    }

    @Test
    void aFailedSearchForAddedTablesNamesWhatFailed() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1);
        try (EnumeratorHarness h = streaming(connector)) {
            assertThat(h.context.getPeriodicCallables()).hasSize(2); // the stream gate's clock, the discovery
            connector.failures.put("discoverTables", new CdcException(CdcException.Kind.CONNECTION, "server closed"));
            assertThatThrownBy(() -> h.context.runPeriodicCallable(1)).isInstanceOf(CdcException.class)
                    .hasMessage("Looking for tables of the recording source created since it started failed: "
                            + "server closed");
            assertOnOneWorkerThread(h, connector);
        }
    }

    /** An enumerator of a source that streams from the latest position and looks for added tables every second. */
    private static EnumeratorHarness streaming(RecordingConnector connector) throws Throwable {
        SourceSettings discovering = CdcSource.builder(new RecordingConnector()).includeTables("db.s.*")
                .startupMode(StartupMode.latest()).tableDiscoveryInterval(Duration.ofSeconds(1)).build().settings();
        EnumeratorHarness h = new EnumeratorHarness(connector, discovering, 1, EnumeratorState.empty());
        h.enumerator.start();
        h.runNextCall();
        return h;
    }

    @Test
    void closingDuringACallLeavesTheSessionToThatCallWhichClosesItOnTheWorker() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3, 4, 5, 6, 7);
        CountDownLatch release = new CountDownLatch(1);
        EnumeratorHarness h = new EnumeratorHarness(connector, INITIAL, 1, EnumeratorState.empty());
        h.enumerator.start();
        h.runNextCall();
        h.enumerator.handleSplitRequest(0, null);
        connector.release = release;
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread planning = new Thread(() -> {
            try {
                h.runNextCall();
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        planning.start();
        assertThat(connector.blocked.await(10, TimeUnit.SECONDS)).isTrue();

        h.enumerator.close(); // returns at once, while the call still uses the session
        assertThat(connector.sessionsOpen).hasValue(1);
        release.countDown();
        planning.join(10_000);
        assertThat(failed.get()).isNull();
        assertThat(connector.sessionsOpen).hasValue(0);
        Thread worker = connector.callsNamed("nextChunkEnd").get(0).thread();
        assertThat(connector.closedOn).last().isSameAs(worker);
        assertThat(h.newAssignments()).as("a closed enumerator assigns nothing").isEmpty();
        h.context.close();
    }

    /**
     * Plays the readers until the stream split is assigned: each reads its chunk at once (mark: the
     * connector's position, counted up), reports it and asks again; checkpoints open the stream gate.
     */
    static StreamSplit<?, ?> drive(EnumeratorHarness h, List<Map.Entry<Integer, CdcSplit>> first,
            List<ChunkSplit<Long>> read) throws Throwable {
        List<Map.Entry<Integer, CdcSplit>> assigned = new ArrayList<>(first);
        for (int round = 0; round < 1_000; round++) {
            for (Map.Entry<Integer, CdcSplit> a : assigned) {
                if (a.getValue() instanceof StreamSplit<?, ?> stream) {
                    return stream;
                }
                @SuppressWarnings("unchecked")
                ChunkSplit<Long> chunk = ((ChunkSplit<Long>) a.getValue()).finished(h.connector.position.incrementAndGet());
                read.add(chunk);
                h.enumerator.handleSourceEvent(a.getKey(), new ChunksFinishedEvent<>(List.of(chunk)));
                h.enumerator.handleSplitRequest(a.getKey(), null);
            }
            h.runAllCalls();
            h.enumerator.snapshotState(round + 10);
            h.enumerator.notifyCheckpointComplete(round + 10);
            h.runAllCalls();
            assigned = h.newAssignments();
        }
        throw new AssertionError("no stream split after 1000 rounds");
    }

    static void assertOnOneWorkerThread(EnumeratorHarness h, RecordingConnector connector) {
        assertThat(connector.calls).isNotEmpty();
        assertThat(connector.calls).extracting(RecordingConnector.Call::thread).doesNotContainAnyElementsOf(
                h.coordinatorThreads);
        assertThat(connector.calls.stream().map(RecordingConnector.Call::thread).distinct()).hasSize(1);
        assertThat(connector.closedOn).doesNotContainAnyElementsOf(h.coordinatorThreads);
    }
}
