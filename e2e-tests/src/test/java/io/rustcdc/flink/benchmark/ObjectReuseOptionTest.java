package io.rustcdc.flink.benchmark;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

/** {@code --object-reuse}: a value other than true or false is refused by name before anything starts. */
class ObjectReuseOptionTest {
    @Test
    void aValueOtherThanTrueOrFalseIsRefusedByName() {
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
        assertThatThrownBy(() -> Benchmark.run(new String[] {"--object-reuse", "yes"}, nowhere))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--object-reuse yes: expected true or false");
    }
}
