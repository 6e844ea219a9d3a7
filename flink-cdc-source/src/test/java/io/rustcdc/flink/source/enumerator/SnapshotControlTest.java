package io.rustcdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.control.ControlDirectory;
import io.rustcdc.flink.source.control.ControlRequest;
import io.rustcdc.flink.source.control.ControlResult;
import io.rustcdc.flink.source.control.ControlSettings;
import io.rustcdc.flink.source.control.SnapshotControl;
import io.rustcdc.flink.source.control.TableReadout;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import io.rustcdc.flink.source.split.TablePlan;
import io.rustcdc.flink.source.split.TestPosition;
import io.rustcdc.flink.testing.CapturedLogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.connector.source.SourceEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snapshot control on the enumerator: requests read from the control directory, applied on the
 * coordinator thread, answered once, durable in the checkpoint. The enumerator's periodic calls are
 * the stream gate's fallback (0) and the control poll (1): table discovery is off.
 */
@Timeout(60)
class SnapshotControlTest {
    private static final TableId A = TableId.of("db", "s", "a");
    private static final TableId B = TableId.of("db", "s", "b");
    private static final int POLL = 1;

    @TempDir Path dir;

    @Test
    void aPauseInTheFirstSnapshotHoldsTheTablesChunksAndTheStreamAndSurvivesARestore() throws Throwable {
        RecordingConnector connector = connector();
        EnumeratorState<TestPosition, Long> state;
        try (EnumeratorHarness h = harness(connector, EnumeratorState.empty())) {
            h.enumerator.start();
            h.runNextCall(); // the first start
            ControlResult paused = apply(h, ControlRequest.of("p1", ControlRequest.Operation.PAUSE, List.of("s.a")));
            assertThat(paused.applied()).isTrue();
            assertThat(paused.previous()).isEqualTo(Map.of("s.a", TableReadout.SNAPSHOTTING));
            assertThat(apply(h, ControlRequest.of("p2", ControlRequest.Operation.PAUSE, List.of("s.a"))).previous())
                    .as("idempotent, with the previous state").isEqualTo(Map.of("s.a", TableReadout.PAUSED));

            List<CdcSplit> assigned = run(h, 20);
            assertThat(assigned).as("only b's chunks, and no stream while a is paused")
                    .allSatisfy(s -> assertThat(((ChunkSplit<?>) s).table()).isEqualTo(B)).isNotEmpty();
            assertThat(readout(h).get("s.a").status()).isEqualTo(TableReadout.PAUSED);
            assertThat(readout(h).get("s.b").status()).isEqualTo(TableReadout.CAPTURED);
            state = h.checkpoint(5);
        }
        try (EnumeratorHarness h = harness(connector, state)) {
            h.enumerator.start();
            h.runAllCalls();
            assertThat(run(h, 5)).as("the pause survives the restore").isEmpty();
            ControlResult resumed = apply(h, ControlRequest.of("r1", ControlRequest.Operation.RESUME, List.of()));
            assertThat(resumed.previous()).isEqualTo(Map.of("s.a", TableReadout.PAUSED));
            List<CdcSplit> assigned = run(h, 20);
            assertThat(assigned).anySatisfy(s -> assertThat(s).isInstanceOf(StreamSplit.class));
            assertThat(assigned.stream().filter(s -> s instanceof ChunkSplit<?>)).extracting(s -> ((ChunkSplit<?>) s).table())
                    .containsOnly(A).hasSize(3);
        }
    }

    @Test
    void aStopInTheFirstSnapshotDropsTheTablesChunksAndLastsAfterARestoreUntilItIsRequested() throws Throwable {
        RecordingConnector connector = connector();
        EnumeratorState<TestPosition, Long> state;
        try (EnumeratorHarness h = harness(connector, EnumeratorState.empty())) {
            h.enumerator.start();
            h.runNextCall();
            ControlResult stopped = apply(h, ControlRequest.of("s1", ControlRequest.Operation.STOP, List.of("s.a")));
            assertThat(stopped.previous()).isEqualTo(Map.of("s.a", TableReadout.SNAPSHOTTING));
            List<CdcSplit> assigned = run(h, 20);
            StreamSplit<?, ?> stream = (StreamSplit<?, ?>) assigned.get(assigned.size() - 1);
            assertThat(stream.tables()).as("a table partly read is not captured").containsExactly(B);
            assertThat(stream.handoff()).extracting(ChunkSplit::table).doesNotContain(A);
            assertThat(assigned.stream().filter(s -> s instanceof ChunkSplit<?>)).extracting(s -> ((ChunkSplit<?>) s).table())
                    .containsOnly(B);
            assertThat(readout(h).get("s.a").status()).isEqualTo(TableReadout.STOPPED);
            state = h.checkpoint(6);
        }
        try (EnumeratorHarness h = harness(connector, state)) {
            h.enumerator.start();
            h.runAllCalls(); // the search for tables added since the checkpoint
            h.enumerator.handleSourceEvent(0, new StreamOwnerEvent(Set.of(B), true));
            List<SourceEvent> sent = sent(h);
            assertThat(sent.get(0)).isInstanceOf(SnapshotControlEvent.class);
            assertThat(((SnapshotControlEvent) sent.get(0)).stopped()).containsExactly(A);
            assertThat(((TablesAddedEvent) sent.get(1)).tables()).as("a stopped table is not taken in again").isEmpty();

            ControlResult requested = apply(h, ControlRequest.of("q1", ControlRequest.Operation.REQUEST,
                    List.of("s.a")));
            assertThat(requested.previous()).isEqualTo(Map.of("s.a", TableReadout.STOPPED));
            assertThat(last(h, TablesAddedEvent.class).tables()).extracting(TablePlan::table).containsExactly(A);
            assertThat(readout(h).get("s.a").status()).isEqualTo(TableReadout.SNAPSHOTTING);
        }
    }

    /**
     * A table whose first snapshot is stopped after a chunk of it was read stays captured: the stream emits every
     * change of it (deletes of the rows downstream got from that chunk included), and a request, also after a
     * restore, reads it again as a captured table (every change emitted while it is read). Before, it left the
     * captured set and was read again as a new table, leaving out the changes its chunks showed: deletes of rows
     * the partial snapshot delivered were lost.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aTableStoppedAfterAChunkOfItWasReadStaysCapturedAndIsReadAgainAsACapturedTable() throws Throwable {
        RecordingConnector connector = connector();
        EnumeratorState<TestPosition, Long> state;
        try (EnumeratorHarness h = harness(connector, EnumeratorState.empty())) {
            h.enumerator.start();
            h.runNextCall();
            h.enumerator.handleSplitRequest(0, null);
            h.runAllCalls();
            List<Map.Entry<Integer, CdcSplit>> first = h.newAssignments();
            ChunkSplit<Long> chunk = (ChunkSplit<Long>) first.get(0).getValue();
            assertThat(chunk.table()).isEqualTo(A);
            h.enumerator.handleSourceEvent(0, new ChunksFinishedEvent<>(List.of(
                    chunk.finished(h.connector.position.incrementAndGet()))));
            ControlResult stopped = apply(h, ControlRequest.of("s1", ControlRequest.Operation.STOP, List.of("s.a")));
            assertThat(stopped.previous()).isEqualTo(Map.of("s.a", TableReadout.SNAPSHOTTING));
            List<CdcSplit> assigned = run(h, 20);
            StreamSplit<?, ?> stream = (StreamSplit<?, ?>) assigned.get(assigned.size() - 1);
            assertThat(stream.tables()).as("rows of a went out: it stays captured").containsExactlyInAnyOrder(A, B);
            assertThat(stream.handoff()).as("none of its chunks: every change of it is emitted")
                    .extracting(ChunkSplit::table).doesNotContain(A);
            assertThat(assigned.stream().filter(s -> s instanceof ChunkSplit<?>)).extracting(s -> ((ChunkSplit<?>) s).table())
                    .containsOnly(B);
            assertThat(readout(h).get("s.a").status()).isEqualTo(TableReadout.STOPPED);
            state = h.checkpoint(6);
        }
        try (EnumeratorHarness h = harness(connector, state)) {
            h.enumerator.start();
            h.runAllCalls();
            h.enumerator.handleSourceEvent(0, new StreamOwnerEvent(Set.of(A, B), true));
            assertThat(((TablesAddedEvent) sent(h).get(1)).tables()).isEmpty();
            assertThat(readout(h).get("s.a").status()).as("after a restore").isEqualTo(TableReadout.STOPPED);
            ControlResult requested = apply(h, ControlRequest.of("q1", ControlRequest.Operation.REQUEST,
                    List.of("s.a")));
            assertThat(requested.previous()).isEqualTo(Map.of("s.a", TableReadout.STOPPED));
            assertThat(sent(h)).as("read again as a captured table").noneMatch(e -> e instanceof TablesAddedEvent
                    && !((TablesAddedEvent) e).tables().isEmpty());
            assertThat(last(h, TablesRereadEvent.class).tables()).extracting(TablePlan::table).containsExactly(A);
            assertThat(readout(h).get("s.a").status()).isEqualTo(TableReadout.QUEUED);
        }
    }

    @Test
    void aRequestRereadsAFinishedTableThroughTheStreamAndIsAppliedOnceAcrossARestore() throws Throwable {
        RecordingConnector connector = connector();
        EnumeratorState<TestPosition, Long> state;
        try (EnumeratorHarness h = harness(connector, EnumeratorState.empty())) {
            streaming(h);

            ControlResult bad = apply(h, ControlRequest.of("q0", ControlRequest.Operation.REQUEST,
                    List.of("s.a", "s.nope")));
            assertThat(bad.applied()).isFalse();
            assertThat(bad.message()).contains("s.nope").contains("include list");
            assertThat(sent(h)).noneMatch(e -> e instanceof TablesRereadEvent);

            ControlResult requested = apply(h, ControlRequest.of("q1", ControlRequest.Operation.REQUEST,
                    List.of("s.a")));
            assertThat(requested.previous()).isEqualTo(Map.of("s.a", TableReadout.CAPTURED));
            TablesRereadEvent reread = last(h, TablesRereadEvent.class);
            assertThat(reread.tables()).extracting(TablePlan::table).containsExactly(A);
            assertThat(reread.tables().get(0).nextIndex()).as("from the start").isZero();
            assertThat(readout(h).get("s.a").status()).isEqualTo(TableReadout.QUEUED);

            h.enumerator.handleSourceEvent(0, new TablesAcceptedEvent(List.of(A), List.of(A)));
            assertThat(readout(h).get("s.a").status()).isEqualTo(TableReadout.SNAPSHOTTING);
            h.enumerator.handleSourceEvent(0, new StreamChunkReadEvent(A, false));
            ControlResult again = apply(h, ControlRequest.of("q2", ControlRequest.Operation.REQUEST, List.of("s.a")));
            assertThat(again.message()).contains("already in progress");
            assertThat(sent(h).stream().filter(e -> e instanceof TablesRereadEvent)).hasSize(1);

            ControlResult paused = apply(h, ControlRequest.of("p1", ControlRequest.Operation.PAUSE, List.of()));
            assertThat(paused.previous()).isEqualTo(Map.of("s.a", TableReadout.SNAPSHOTTING));
            assertThat(last(h, SnapshotControlEvent.class).paused()).containsExactly(A);
            TableReadout a = readout(h).get("s.a");
            assertThat(a.status()).isEqualTo(TableReadout.PAUSED);
            assertThat(a.chunksRead()).isEqualTo(1);
            assertThat(a.filter()).isEqualTo("none");

            // every request file is still there: a poll does not apply one twice
            int before = sent(h).size();
            h.context.runPeriodicCallable(POLL);
            h.runAllCalls();
            assertThat(sent(h)).hasSize(before);
            state = h.checkpoint(7);
        }
        try (EnumeratorHarness h = harness(connector, state)) {
            h.enumerator.start();
            h.runAllCalls();
            h.context.runPeriodicCallable(POLL);
            h.runAllCalls();
            h.enumerator.handleSourceEvent(0, new StreamOwnerEvent(Set.of(A, B), true));
            List<SourceEvent> sent = sent(h);
            assertThat(sent).as("answered once, before the restore").noneMatch(e -> e instanceof TablesRereadEvent);
            assertThat(((SnapshotControlEvent) sent.get(0)).paused()).as("the pause survives").containsExactly(A);
            assertThat(readout(h).get("s.a").status()).isEqualTo(TableReadout.PAUSED);

            h.enumerator.snapshotState(8);
            h.enumerator.notifyCheckpointComplete(8);
            h.runAllCalls();
            assertThat(Files.list(dir.resolve("requests")).filter(p -> p.toString().endsWith(".request")))
                    .as("answered requests are deleted once a checkpoint holds them").isEmpty();
            assertThat(h.checkpoint(9).control.applied()).isEmpty();

            ControlResult resumed = apply(h, ControlRequest.of("r1", ControlRequest.Operation.RESUME, List.of("s.a")));
            assertThat(resumed.previous()).isEqualTo(Map.of("s.a", TableReadout.PAUSED));
            h.enumerator.handleSourceEvent(0, new StreamChunkReadEvent(A, true));
            assertThat(readout(h).get("s.a").status()).isEqualTo(TableReadout.CAPTURED);
        }
    }

    /**
     * A requested row filter that fails on some rows ends the table's snapshot as failed, the database's
     * message on one line and shortened as the reason; both are in the checkpoint, so the readout after a
     * restore says failed and why, until the table is requested again.
     */
    @Test
    void aFailedRequestedSnapshotReadsFailedWithTheDatabasesMessageAlsoAfterARestore() throws Throwable {
        RecordingConnector connector = connector();
        String filter = "1 / (n - 3) > 0";
        String message = "ERROR: division by zero\n  Where: SQL statement\t" + "x".repeat(400);
        EnumeratorState<TestPosition, Long> state;
        try (EnumeratorHarness h = harness(connector, EnumeratorState.empty())) {
            streaming(h);
            assertThat(apply(h, ControlRequest.request("f1", List.of("s.a"), Map.of("s.a", filter))).applied())
                    .isTrue();
            h.enumerator.handleSourceEvent(0, new TablesAcceptedEvent(List.of(A), List.of(A)));
            h.enumerator.handleSourceEvent(0, new SnapshotFailedEvent(A, filter, message));
            TableReadout a = readout(h).get("s.a");
            assertThat(a.status()).isEqualTo(TableReadout.FAILED);
            assertThat(a.reason()).startsWith("ERROR: division by zero Where: SQL statement xxx")
                    .hasSize(SnapshotOperations.REASON_LENGTH).endsWith("\u2026");
            assertThat(readout(h).get("s.b").reason()).isEmpty();
            state = h.checkpoint(5);
        }
        assertThat(state.control.failed()).containsOnlyKeys(A);
        EnumeratorStateSerializer<TestPosition, Long> serializer = EnumeratorStateSerializerTest.SERIALIZER;
        state = serializer.deserialize(serializer.getVersion(), serializer.serialize(state));
        try (EnumeratorHarness h = harness(connector, state)) {
            h.enumerator.start();
            h.runAllCalls();
            h.enumerator.handleSourceEvent(0, new StreamOwnerEvent(Set.of(A, B), true));
            TableReadout a = readout(h).get("s.a");
            assertThat(a.status()).as("after a restore").isEqualTo(TableReadout.FAILED);
            assertThat(a.reason()).startsWith("ERROR: division by zero").hasSize(SnapshotOperations.REASON_LENGTH);
            ControlResult again = apply(h, ControlRequest.of("f2", ControlRequest.Operation.REQUEST, List.of("s.a")));
            assertThat(again.previous()).isEqualTo(Map.of("s.a", TableReadout.FAILED));
            assertThat(readout(h).get("s.a").status()).isEqualTo(TableReadout.QUEUED);
            assertThat(readout(h).get("s.a").reason()).isEmpty();
            assertThat(h.checkpoint(6).control.failed()).isEmpty();
        }
    }

    @Test
    void theReasonOfAFailedSnapshotIsTheMessageOnOneLineShortened() {
        assertThat(SnapshotOperations.reason("  ERROR: division by zero\n  Where: x\r\n")).isEqualTo(
                "ERROR: division by zero Where: x");
        String exact = "e".repeat(SnapshotOperations.REASON_LENGTH);
        assertThat(SnapshotOperations.reason(exact)).isEqualTo(exact);
        String longer = "e".repeat(SnapshotOperations.REASON_LENGTH - 2) + "\uD83D\uDE00" + "more";
        assertThat(SnapshotOperations.reason(longer)).as("not half a character").isEqualTo(
                "e".repeat(SnapshotOperations.REASON_LENGTH - 2) + "\u2026");
    }

    @Test
    void rowFiltersConfiguredAndRequestedTravelWithThePlansAndShowInTheReadoutAfterARestore() throws Throwable {
        RecordingConnector connector = connector();
        SourceSettings settings = CdcSource.builder(new RecordingConnector()).includeTables("db.s.*").chunkSize(5)
                .tableDiscoveryInterval(Duration.ZERO).rowFilter("s.a", "even").build().settings();
        EnumeratorState<TestPosition, Long> state;
        try (EnumeratorHarness h = harness(connector, EnumeratorState.empty(), settings)) {
            h.enumerator.start();
            h.runNextCall();
            assertThat(connector.callsNamed("rowFilterProblem even")).as("checked at the first start").hasSize(1);
            List<CdcSplit> assigned = run(h, 20);
            List<ChunkSplit<?>> chunksOfA = assigned.stream().filter(c -> c instanceof ChunkSplit<?> k
                    && k.table().equals(A)).<ChunkSplit<?>>map(c -> (ChunkSplit<?>) c).toList();
            // 6 even keys of 12: one chunk of 5 even keys ending at 10, then the rest (a chunk by row count of
            // every key would end at 5)
            assertThat(chunksOfA).extracting(c -> c.upTo() == null ? null : c.upTo()[0]).containsExactly(10L, null);
            assertThat(chunksOfA).allSatisfy(c -> assertThat(c.rowFilter()).isEqualTo("even"));
            assertThat(assigned.stream().filter(c -> c instanceof ChunkSplit<?> k && k.table().equals(B)))
                    .allSatisfy(c -> assertThat(((ChunkSplit<?>) c).rowFilter()).isNull());
            assertThat(readout(h).get("s.a").filter()).isEqualTo("even");
            assertThat(readout(h).get("s.b").filter()).isEqualTo(TableReadout.NO_FILTER);
            h.enumerator.handleSourceEvent(0, new StreamOwnerEvent(Set.of(A, B), false));

            ControlResult bad = apply(h, ControlRequest.request("f0", List.of("s.a", "s.b"), Map.of("s.b", "bad = 1")));
            assertThat(bad.applied()).isFalse();
            assertThat(bad.message()).contains("s.b").contains("f0").contains("bad = 1").contains("syntax error");
            assertThat(sent(h)).noneMatch(e -> e instanceof TablesRereadEvent);

            ControlResult requested = apply(h, ControlRequest.request("f1", List.of("s.a", "s.b"),
                    Map.of("s.b", "even")));
            assertThat(requested.applied()).isTrue();
            TablesRereadEvent reread = last(h, TablesRereadEvent.class);
            assertThat(reread.tables()).extracting(TablePlan::table, TablePlan::rowFilter)
                    .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(A, "even"),
                            org.assertj.core.groups.Tuple.tuple(B, "even"));
            assertThat(readout(h).get("s.b").filter()).isEqualTo("even");
            state = h.checkpoint(3);
        }
        assertThat(state.control.rereads()).extracting(TablePlan::rowFilter).containsOnly("even");
        EnumeratorStateSerializer<TestPosition, Long> serializer = EnumeratorStateSerializerTest.SERIALIZER;
        state = serializer.deserialize(serializer.getVersion(), serializer.serialize(state));
        try (EnumeratorHarness h = harness(connector, state, settings)) {
            h.enumerator.start();
            h.runAllCalls();
            assertThat(readout(h).get("s.b").filter()).as("after a restore").isEqualTo("even");
            assertThat(readout(h).get("s.a").filter()).isEqualTo("even");
        }
    }

    /**
     * A job restored with another configured filter while a table's snapshot is under way: a WARN names the
     * table and both filters and says which applies, the one the snapshot started with (its chunks keep it).
     */
    @Test
    void aRestoreWithAnotherConfiguredFilterWarnsAndTheSnapshotKeepsTheFilterItStartedWith() throws Throwable {
        RecordingConnector connector = connector();
        EnumeratorState<TestPosition, Long> state;
        try (EnumeratorHarness h = harness(connector, EnumeratorState.empty(), CdcSource.builder(new RecordingConnector())
                .includeTables("db.s.*").chunkSize(5).tableDiscoveryInterval(Duration.ZERO).rowFilter("s.a", "even")
                .build().settings())) {
            h.enumerator.start();
            h.runNextCall(); // the first start: a's snapshot starts with "even", no chunk is read yet
            state = h.checkpoint(1);
        }
        SourceSettings changed = CdcSource.builder(new RecordingConnector()).includeTables("db.s.*").chunkSize(5)
                .tableDiscoveryInterval(Duration.ZERO).rowFilter("s.a", "odd").rowFilter("s.b", "even").build()
                .settings();
        try (CapturedLogs logs = CapturedLogs.start("none");
                EnumeratorHarness h = harness(connector, state, changed)) {
            List<String> warnings = logs.containing("was under way when the restored state was taken");
            assertThat(warnings).hasSize(2);
            assertThat(warnings).anySatisfy(w -> assertThat(w).contains("WARN").contains("db:s.a")
                    .contains("with the row filter [even]").contains("now gives it [odd] (rowFilter(\"s.a\", ...))")
                    .contains("goes on with [even]"));
            assertThat(warnings).anySatisfy(w -> assertThat(w).contains("db:s.b").contains("with the row filter none")
                    .contains("now gives it [even]").contains("goes on with none"));
            h.enumerator.start();
            h.runAllCalls();
            assertThat(run(h, 20).stream().filter(c -> c instanceof ChunkSplit<?> k && k.table().equals(A)))
                    .as("the snapshot under way keeps its filter").isNotEmpty()
                    .allSatisfy(c -> assertThat(((ChunkSplit<?>) c).rowFilter()).isEqualTo("even"));
            assertThat(readout(h).get("s.a").filter()).isEqualTo("even");
        }
    }

    @Test
    void aConfiguredRowFilterTheDatabaseRejectsFailsTheFirstStartNamingTableOptionAndMessage() throws Throwable {
        SourceSettings settings = CdcSource.builder(new RecordingConnector()).includeTables("db.s.*").chunkSize(5)
                .tableDiscoveryInterval(Duration.ZERO).rowFilter("s.b", "bad > 2").build().settings();
        try (EnumeratorHarness h = harness(connector(), EnumeratorState.empty(), settings)) {
            h.enumerator.start();
            org.assertj.core.api.Assertions.assertThatThrownBy(h::runNextCall).hasStackTraceContaining("s.b")
                    .hasStackTraceContaining("rowFilter(\"s.b\", ...)").hasStackTraceContaining("bad > 2")
                    .hasStackTraceContaining("syntax error");
        }
    }

    @Test
    void aRequestThatCannotBeReadOrNamesNoCapturedTableIsRejected() throws Throwable {
        try (EnumeratorHarness h = harness(connector(), EnumeratorState.empty())) {
            h.enumerator.start();
            h.runNextCall();
            Files.createDirectories(dir.resolve("requests"));
            Files.writeString(dir.resolve("requests/x1.request"), "operation=explode\n");
            h.context.runPeriodicCallable(POLL);
            h.runAllCalls();
            ControlResult r = SnapshotControl.at(dir.toUri().toString()).result("x1").orElseThrow();
            assertThat(r.applied()).isFalse();
            assertThat(r.message()).contains("x1").contains("explode");
            ControlResult unknown = apply(h, ControlRequest.of("x2", ControlRequest.Operation.PAUSE,
                    List.of("s.a", "s.zzz")));
            assertThat(unknown.applied()).isFalse();
            assertThat(unknown.message()).contains("s.zzz");
            assertThat(readout(h).get("s.a").status()).isEqualTo(TableReadout.SNAPSHOTTING);
        }
    }

    @Test
    void aSourceThatDoesNotStreamRefusesToReadAFinishedTableAgain() throws Throwable {
        try (EnumeratorHarness h = harness(connector(), EnumeratorState.empty(), StartupMode.snapshot())) {
            h.enumerator.start();
            h.runNextCall();
            ControlResult paused = apply(h, ControlRequest.of("p1", ControlRequest.Operation.PAUSE, List.of("s.a")));
            assertThat(paused.applied()).isTrue();
            run(h, 20);
            ControlResult rejected = apply(h, ControlRequest.of("q1", ControlRequest.Operation.REQUEST,
                    List.of("s.a", "s.b")));
            assertThat(rejected.applied()).isFalse();
            assertThat(rejected.message()).contains("does not stream").contains("s.b").doesNotContain("s.a,");
            assertThat(readout(h).get("s.a").status()).isEqualTo(TableReadout.PAUSED);
        }
    }

    private RecordingConnector connector() {
        return new RecordingConnector().table("a", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
                .table("b", 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32);
    }

    private EnumeratorHarness harness(RecordingConnector connector, EnumeratorState<TestPosition, Long> state) {
        return harness(connector, state, StartupMode.initial());
    }

    private EnumeratorHarness harness(RecordingConnector connector, EnumeratorState<TestPosition, Long> state,
            StartupMode mode) {
        SourceSettings settings = CdcSource.builder(new RecordingConnector()).includeTables("db.s.*")
                .startupMode(mode).chunkSize(5).tableDiscoveryInterval(Duration.ZERO).build()
                .settings();
        return harness(connector, state, settings);
    }

    private EnumeratorHarness harness(RecordingConnector connector, EnumeratorState<TestPosition, Long> state,
            SourceSettings settings) {
        return new EnumeratorHarness(connector, settings, 1, state,
                new ControlSettings(ControlDirectory.of(dir.toUri().toString()), Duration.ofMillis(100)));
    }

    /** Writes {@code request}, polls, and returns its result. */
    private ControlResult apply(EnumeratorHarness h, ControlRequest request) throws Throwable {
        SnapshotControl client = SnapshotControl.at(dir.toUri().toString());
        client.send(request);
        h.context.runPeriodicCallable(POLL);
        h.runAllCalls();
        return client.result(request.id()).orElseThrow(() -> new AssertionError("no result of " + request));
    }

    private Map<String, TableReadout> readout(EnumeratorHarness h) throws Throwable {
        h.context.runPeriodicCallable(POLL);
        h.runAllCalls();
        Map<String, TableReadout> byTable = new java.util.HashMap<>();
        SnapshotControl.at(dir.toUri().toString()).state().forEach(t -> byTable.put(t.table(), t));
        return byTable;
    }

    /** Starts, reads the first snapshot, and has subtask 0 take the stream. */
    private static void streaming(EnumeratorHarness h) throws Throwable {
        h.enumerator.start();
        h.runNextCall();
        run(h, 20);
        h.enumerator.handleSourceEvent(0, new StreamOwnerEvent(Set.of(A, B), false));
    }

    /** Reads every chunk assigned, for {@code rounds} rounds; returns the splits assigned. */
    @SuppressWarnings("unchecked")
    private static List<CdcSplit> run(EnumeratorHarness h, int rounds) throws Throwable {
        List<CdcSplit> all = new ArrayList<>();
        h.enumerator.handleSplitRequest(0, null);
        for (int round = 0; round < rounds; round++) {
            h.runAllCalls();
            for (Map.Entry<Integer, CdcSplit> a : h.newAssignments()) {
                all.add(a.getValue());
                if (a.getValue() instanceof ChunkSplit<?> c) {
                    ChunkSplit<Long> chunk = ((ChunkSplit<Long>) c).finished(h.connector.position.incrementAndGet());
                    h.enumerator.handleSourceEvent(a.getKey(), new ChunksFinishedEvent<>(List.of(chunk)));
                    h.enumerator.handleSplitRequest(a.getKey(), null);
                }
            }
            h.enumerator.snapshotState(100 + round);
            h.enumerator.notifyCheckpointComplete(100 + round);
            h.runAllCalls();
            h.context.runPeriodicCallable(0); // the gate's fallback
            h.runAllCalls();
        }
        return all;
    }

    private static List<SourceEvent> sent(EnumeratorHarness h) throws Exception {
        return h.context.getSentSourceEvent().getOrDefault(0, List.of()).stream()
                .filter(e -> !(e instanceof ChunksAcknowledgedEvent)).toList();
    }

    private static <E> E last(EnumeratorHarness h, Class<E> type) throws Exception {
        List<SourceEvent> events = sent(h).stream().filter(type::isInstance).toList();
        assertThat(events).as("a " + type.getSimpleName() + " was sent").isNotEmpty();
        return type.cast(events.get(events.size() - 1));
    }
}
