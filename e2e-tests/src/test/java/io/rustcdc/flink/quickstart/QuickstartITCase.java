package io.rustcdc.flink.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's first command, briefly: snapshot rows and stream changes are printed, then it stops. */
@Timeout(180)
class QuickstartITCase {

    @Test
    void printsTheSnapshotAndTheStreamThenStops() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Quickstart.run(new String[] {"--seconds", "8"}, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String output = bytes.toString(StandardCharsets.UTF_8);
        assertThat(output).contains("=== rustcdc for Apache Flink: quickstart")
                .contains("-- row shape of public.orders:")
                .contains("\"op\":\"read\",\"schema\":\"public\",\"table\":\"customers\"")
                .contains("\"op\":\"insert\",\"schema\":\"public\",\"table\":\"orders\"")
                .contains("\"type_mapping\":\"v2\"")
                .contains("=== done");
    }

    @Test
    void sqlModeRunsAContinuousQueryOverTheSameSource() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Quickstart.run(new String[] {"--seconds", "8", "--sql", "true"}, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String output = bytes.toString(StandardCharsets.UTF_8);
        assertThat(output).contains("'connector' = 'rustcdc-postgres'")
                .contains("'password' = '******'")
                .contains("+I[new, 1,")
                .contains("+U[new,")
                .contains("=== done");
    }
}
