package io.rustcdc.flink.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code --json-output}: refused by name before anything starts when it is unknown; bytes read as text. */
class JsonOutputOptionTest {
    private static final PrintStream NOWHERE = new PrintStream(OutputStream.nullOutputStream());

    @Test
    void anUnknownOutputIsRefusedByName() {
        assertThatThrownBy(() -> Benchmark.run(new String[] {"--json-output", "utf8"}, NOWHERE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--json-output utf8: expected bytes or string");
    }

    @Test
    void aDocumentInBytesHasTheCommitTimeOfItsText() {
        String json = "{\"op\":\"insert\",\"after\":{\"note\":\"caf\u00e9\"},\"source\":{\"connector\":\"postgres\","
                + "\"commit_time\":\"2026-12-04T00:00:01.5Z\",\"snapshot\":false}}";
        assertThat(OurBenchmark.commitMillis(json.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(OurBenchmark.commitMillis(json)).isEqualTo(1_796_342_401_500L);
    }
}
