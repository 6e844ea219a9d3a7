package io.rustcdc.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Seeds#forEach}: the seeds a property names, each a {@link Random} of it, and failures naming the seed. */
class SeedsTest {
    private static final String SEED = "seeds-test.seed";
    private static final String RUNS = "seeds-test.runs";

    @Test
    void runsOncePerSeedWithItsRandom() {
        List<Long> drawn = new ArrayList<>();
        System.setProperty(SEED, "5, 7");
        try {
            Seeds.forEach(SEED, RUNS, 3, random -> drawn.add(random.nextLong()));
        } finally {
            System.clearProperty(SEED);
        }
        assertThat(drawn).containsExactly(new Random(5).nextLong(), new Random(7).nextLong());
        drawn.clear();
        Seeds.forEach(SEED, RUNS, 3, random -> drawn.add(random.nextLong()));
        assertThat(drawn).hasSize(3);
    }

    @Test
    void failuresNameTheSeedAndHowToReplayIt() {
        System.setProperty(SEED, "42");
        try {
            assertThatThrownBy(() -> Seeds.forEach(SEED, RUNS, 1, random -> assertThat(1).as("one").isEqualTo(2)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageStartingWith("seed 42 (replay: -Dseeds-test.seed=42): [one]")
                    .hasCauseInstanceOf(AssertionError.class);
            IllegalStateException thrown = new IllegalStateException("broken");
            assertThatThrownBy(() -> Seeds.forEach(SEED, RUNS, 1, random -> {
                throw thrown;
            })).isInstanceOf(RuntimeException.class)
                    .hasMessage("seed 42 (replay: -Dseeds-test.seed=42): java.lang.IllegalStateException: broken")
                    .hasCause(thrown);
        } finally {
            System.clearProperty(SEED);
        }
    }
}
