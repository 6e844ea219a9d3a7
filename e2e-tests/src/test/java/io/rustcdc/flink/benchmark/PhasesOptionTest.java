package io.rustcdc.flink.benchmark;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

/** {@code --phases}: a value other than all, snapshot or stream is refused by name before anything starts. */
class PhasesOptionTest {
    @Test
    void aValueOtherThanAllSnapshotOrStreamIsRefusedByName() {
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
        assertThatThrownBy(() -> Benchmark.run(new String[] {"--phases", "drain"}, nowhere))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--phases drain: expected all, snapshot or stream");
    }
}
