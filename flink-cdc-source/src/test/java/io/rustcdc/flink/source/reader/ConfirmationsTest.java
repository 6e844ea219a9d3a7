package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A position is confirmed once the n-th newest completed checkpoint holds it, never earlier. */
class ConfirmationsTest {

    @Test
    void withOneRetainedTheCompletedCheckpointsPositionIsConfirmed() {
        Confirmations<Long> c = new Confirmations<>(1);
        c.checkpointed(1, 10L);
        c.checkpointed(2, 20L);
        assertThat(c.completed(1)).isEqualTo(10L);
        assertThat(c.completed(2)).isEqualTo(20L);
    }

    @Test
    void withTwoRetainedThePositionOfTheOlderOfTheLastTwoIsConfirmed() {
        Confirmations<Long> c = new Confirmations<>(2);
        c.checkpointed(1, 10L);
        c.checkpointed(2, 20L);
        c.checkpointed(3, 30L);
        assertThat(c.completed(1)).as("one completed: none retained before it").isNull();
        assertThat(c.completed(2)).isEqualTo(10L);
        assertThat(c.completed(3)).isEqualTo(20L);
    }

    @Test
    void aCompletionSubsumesOlderCheckpointsThatNeverCompleted() {
        Confirmations<Long> c = new Confirmations<>(1);
        c.checkpointed(1, 10L);
        c.checkpointed(2, 20L);
        c.checkpointed(3, 30L);
        assertThat(c.completed(2)).isEqualTo(20L);
        assertThat(c.completed(1)).as("subsumed by checkpoint 2").isNull();
        assertThat(c.completed(3)).isEqualTo(30L);
    }

    @Test
    void aCheckpointWithoutAStreamPositionConfirmsNothing() {
        Confirmations<Long> c = new Confirmations<>(1);
        assertThat(c.completed(7)).isNull();
        c.checkpointed(8, 80L);
        assertThat(c.completed(8)).isEqualTo(80L);
    }
}
