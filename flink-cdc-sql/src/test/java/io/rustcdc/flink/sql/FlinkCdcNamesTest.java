package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.junit.jupiter.api.Test;

class FlinkCdcNamesTest {

    private static ReadableConfig apply(Map<String, String> options) {
        return FlinkCdcNames.apply(Configuration.fromMap(options), "rustcdc-postgres");
    }

    @Test
    void renamedAndConvertedNamesAreReadAsOurs() {
        Map<String, String> ours = apply(Map.of("debezium.publication.name", "shop_pub",
                "scan.lsn-commit.checkpoints-num-delay", "2", "decoding.plugin.name", "pgoutput",
                "scan.incremental.snapshot.enabled", "true", "scan.newly-added-table.enabled", "true",
                "scan.include-partitioned-tables.enabled", "true")).toMap();
        assertThat(ours).containsEntry("publication.name", "shop_pub")
                .containsEntry("checkpoints.retained-before-confirm", "3");
        assertThat(apply(Map.of("publication.name", "p", "debezium.publication.name", "p")).toMap())
                .containsEntry("publication.name", "p");
        assertThat(apply(Map.of("publication.name", "p")).toMap()).containsOnlyKeys("publication.name");
    }

    @Test
    void valuesThatMeanSomethingElseAreRefusedNamingTheOption() {
        assertThatThrownBy(() -> apply(Map.of("decoding.plugin.name", "decoderbufs"))).isInstanceOf(CdcException.class)
                .hasMessageContaining("'decoding.plugin.name' (Flink CDC's name) is 'decoderbufs': rustcdc-postgres "
                        + "decodes pgoutput only. Remove the option or set it to 'pgoutput'");
        assertThatThrownBy(() -> apply(Map.of("scan.newly-added-table.enabled", "false")))
                .hasMessageContaining("'scan.newly-added-table.enabled' (Flink CDC's name) is 'false'");
        assertThatThrownBy(() -> apply(Map.of("scan.include-partitioned-tables.enabled", "false")))
                .hasMessageContaining("through its root");
        assertThatThrownBy(() -> apply(Map.of("scan.lsn-commit.checkpoints-num-delay", "-1")))
                .hasMessageContaining("0 or more");
        assertThatThrownBy(() -> apply(Map.of("publication.name", "a", "debezium.publication.name", "b")))
                .hasMessageContaining("disagree").hasMessageContaining("keep 'publication.name' only");
        assertThatThrownBy(() -> apply(Map.of("checkpoints.retained-before-confirm", "1",
                "scan.lsn-commit.checkpoints-num-delay", "1")))
                .hasMessageContaining("'checkpoints.retained-before-confirm' = '2'");
    }
}
