package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.model.TableId;
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

    @Test
    void aBinlogFileAndOffsetAreOurPositionText() {
        assertThat(apply(Map.of("scan.startup.mode", "specific-offset", "scan.startup.specific-offset.file",
                "mysql-bin.000003", "scan.startup.specific-offset.pos", "4567")).toMap())
                .containsEntry("scan.startup.specific-offset", "mysql-bin.000003:4567");
        assertThatThrownBy(() -> apply(Map.of("scan.startup.mode", "specific-offset",
                "scan.startup.specific-offset.file", "mysql-bin.000003"))).isInstanceOf(CdcException.class)
                .hasMessageContaining("go together").hasMessageContaining("no offset");
        assertThatThrownBy(() -> apply(Map.of("scan.startup.specific-offset.file", "mysql-bin.000003",
                "scan.startup.specific-offset.pos", "4"))).hasMessageContaining("only with 'scan.startup.mode' = "
                        + "'specific-offset', not 'initial'");
        assertThatThrownBy(() -> apply(Map.of("scan.startup.mode", "specific-offset", "scan.startup.specific-offset",
                "mysql-bin.000003:5", "scan.startup.specific-offset.file", "mysql-bin.000003",
                "scan.startup.specific-offset.pos", "4"))).hasMessageContaining("disagree");
    }

    @Test
    void aBareChunkKeyColumnIsTheSqlTablesOwn() {
        TableId orders = TableId.of("shop", "public", "orders");
        ReadableConfig bare = Configuration.fromMap(Map.of("scan.incremental.snapshot.chunk.key-column", "code"));
        assertThat(FlinkCdcNames.qualifyChunkKeyColumns(bare, orders, "public.orders")
                .get(CdcSourceOptions.CHUNK_KEY_COLUMNS)).containsExactly("public.orders:code");
        ReadableConfig ours = Configuration.fromMap(Map.of("scan.incremental.snapshot.chunk.key-column",
                "public.orders:code"));
        assertThat(FlinkCdcNames.qualifyChunkKeyColumns(ours, orders, "public.orders")).isSameAs(ours);
        assertThat(FlinkCdcNames.qualifyChunkKeyColumns(Configuration.fromMap(Map.of()), null, "public.o*")
                .get(CdcSourceOptions.CHUNK_KEY_COLUMNS)).isEmpty();
        assertThatThrownBy(() -> FlinkCdcNames.qualifyChunkKeyColumns(bare, null, "public.orders_*"))
                .isInstanceOf(CdcException.class).hasMessageContaining("reads every table the pattern matches")
                .hasMessageContaining("'public.orders_*'");
    }
}
