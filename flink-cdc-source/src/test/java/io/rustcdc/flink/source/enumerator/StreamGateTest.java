package io.rustcdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StreamGateTest {

    @Test
    void onlyACheckpointTakenAfterTheLastChunkOpensTheGate() {
        StreamGate gate = new StreamGate();
        gate.checkpointTaken(1); // before the last chunk was read: does not count
        gate.checkpointCompleted(1);
        assertThat(gate.open()).isFalse();
        gate.arm(0);
        gate.checkpointTaken(2);
        gate.checkpointTaken(3);
        gate.checkpointCompleted(1);
        assertThat(gate.open()).as("an older checkpoint completing").isFalse();
        gate.checkpointCompleted(2);
        assertThat(gate.open()).isTrue();
    }

    @Test
    void aLaterCheckpointCompletingAlsoOpensIt() {
        StreamGate gate = new StreamGate();
        gate.arm(0);
        gate.checkpointTaken(5);
        gate.checkpointCompleted(6); // 5 was subsumed
        assertThat(gate.open()).isTrue();
    }

    @Test
    void withoutCheckpointsTheFallbackComesAfterItsTime() {
        StreamGate gate = new StreamGate();
        assertThat(gate.fallbackDue(Long.MAX_VALUE)).as("not armed").isFalse();
        gate.arm(100);
        gate.arm(5_000); // the first arming counts
        assertThat(gate.fallbackDue(100 + StreamGate.FALLBACK_NANOS - 1)).isFalse();
        assertThat(gate.fallbackDue(100 + StreamGate.FALLBACK_NANOS)).isTrue();
    }
}
