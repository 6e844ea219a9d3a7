package io.rustcdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.SinkGuarantee;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.split.TestPosition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * For an at-least-once sink, a source started without state hands out nothing until a checkpoint that
 * holds its first start has completed: a restore from a checkpoint taken earlier starts over from nothing,
 * and what the failed attempt emitted would stay in the sink (seen: a MariaDB consistency run whose
 * JobManager failed over after a checkpoint taken while the first start still ran kept 4 deleted rows).
 */
@Timeout(60)
class StartGateTest {

    @Test
    void onlyACheckpointTakenAfterTheFirstStartOpensTheGate() {
        StartGate gate = new StartGate(true);
        gate.checkpointTaken(1); // while the first start runs: its state holds no start
        assertThat(gate.checkpointCompleted(1)).isFalse();
        gate.arm(0);
        assertThat(gate.mayAssign(0)).isFalse();
        gate.checkpointTaken(2);
        assertThat(gate.checkpointCompleted(1)).as("an older checkpoint completing").isFalse();
        assertThat(gate.mayAssign(Long.MAX_VALUE)).as("checkpoints are taken: no fallback").isFalse();
        assertThat(gate.checkpointCompleted(3)).as("a later one (2 subsumed)").isTrue();
        assertThat(gate.mayAssign(0)).isTrue();
        assertThat(gate.checkpointCompleted(4)).as("opened once").isFalse();
    }

    @Test
    void withoutAnyCheckpointTheFallbackComesAfterItsTimeAndStaysOpen() {
        StartGate gate = new StartGate(true);
        assertThat(gate.waiting()).as("not armed").isFalse();
        gate.arm(100);
        assertThat(gate.waiting()).isTrue();
        assertThat(gate.mayAssign(100 + StartGate.FALLBACK_NANOS - 1)).isFalse();
        assertThat(gate.mayAssign(100 + StartGate.FALLBACK_NANOS)).isTrue();
        gate.checkpointTaken(1);
        assertThat(gate.mayAssign(100 + StartGate.FALLBACK_NANOS)).as("open for good").isTrue();
        assertThat(gate.waiting()).isFalse();
    }

    @Test
    void aGateThatHoldsNothingIsOpen() {
        StartGate gate = new StartGate(false);
        gate.checkpointTaken(1);
        assertThat(gate.mayAssign(0)).isTrue();
        assertThat(gate.waiting()).isFalse();
    }

    @Test
    void anAtLeastOnceSourceHandsOutItsFirstChunkOnlyOnceACheckpointHoldsItsFirstStart() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3, 4, 5, 6, 7);
        try (EnumeratorHarness h = new EnumeratorHarness(connector, settings(SinkGuarantee.AT_LEAST_ONCE), 1,
                EnumeratorState.empty())) {
            h.enumerator.start();
            h.enumerator.handleSplitRequest(0, null);
            EnumeratorState<TestPosition, Long> early = h.checkpoint(1); // Flink checkpoints while the first start runs
            assertThat(early.initialized).isFalse();
            h.runNextCall(); // the first start
            h.enumerator.notifyCheckpointComplete(1);
            h.runAllCalls();
            assertThat(h.newAssignments()).as("checkpoint 1 holds no start: a restore from it starts over").isEmpty();

            assertThat(h.checkpoint(2).initialized).isTrue();
            assertThat(h.newAssignments()).isEmpty();
            h.enumerator.notifyCheckpointComplete(2);
            h.runAllCalls(); // planning
            assertThat(h.newAssignments()).hasSize(1);
        }
    }

    @Test
    void otherwiseTheFirstChunkGoesOutAtOnce() throws Throwable {
        EnumeratorState<TestPosition, Long> restored;
        try (EnumeratorHarness h = new EnumeratorHarness(twelveRows(),
                settings(SinkGuarantee.EXACTLY_ONCE), 1, EnumeratorState.empty())) {
            h.enumerator.start();
            h.enumerator.handleSplitRequest(0, null);
            h.runAllCalls();
            assertThat(h.newAssignments()).as("exactly-once").hasSize(1);
            restored = h.checkpoint(1);
        }
        try (EnumeratorHarness h = new EnumeratorHarness(twelveRows(),
                settings(SinkGuarantee.AT_LEAST_ONCE), 1, restored)) {
            h.enumerator.start();
            h.enumerator.handleSplitRequest(0, null);
            h.runAllCalls();
            assertThat(h.newAssignments()).as("at-least-once, restored: the checkpoint holds the start").hasSize(1);
        }
    }

    private static RecordingConnector twelveRows() {
        return new RecordingConnector().table("a", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
    }

    private static SourceSettings settings(SinkGuarantee sink) {
        return CdcSource.builder(new RecordingConnector()).includeTables("db.s.*").startupMode(StartupMode.initial())
                .chunkSize(5).sinkGuarantee(sink).build().settings();
    }
}
