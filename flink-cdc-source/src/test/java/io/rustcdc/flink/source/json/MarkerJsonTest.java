package io.rustcdc.flink.source.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionMarker;
import io.rustcdc.flink.source.split.TestPosition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.junit.jupiter.api.Test;

class MarkerJsonTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Instant COMMIT = Instant.parse("2026-12-02T15:04:05.123456789Z");

    @Test
    void aBeginNamesItsTransactionAndWhereItsFirstEventIs() throws Exception {
        JsonNode json = MAPPER.readTree(JsonRenderer.create().renderToString(
                TransactionMarker.begin("771", SourceInfo.stream("postgres", new TestPosition(12), COMMIT))));
        assertThat(json.get("op").asText()).isEqualTo("begin");
        assertThat(json.get("transaction").get("id").asText()).isEqualTo("771");
        assertThat(json.get("transaction").has("event_count")).isFalse();
        assertThat(json.get("source").get("connector").asText()).isEqualTo("postgres");
        assertThat(json.get("source").get("position").asText()).isEqualTo(new TestPosition(12).toString());
        assertThat(json.get("source").get("commit_time").asText()).isEqualTo("2026-12-02T15:04:05.123456789Z");
        assertThat(json.get("source").get("snapshot").asBoolean()).isFalse();
    }

    @Test
    void anEndCountsItsEventsPerTableInTableOrder() throws Exception {
        TransactionMarker end = TransactionMarker.end("0-1-7", SourceInfo.stream("mariadb", new TestPosition(20), null),
                Map.of(TableId.of("shop", null, "orders"), 2L, TableId.of("shop", null, "items"), 1L,
                        TableId.of("archive", null, "orders"), 4L));
        JsonNode json = MAPPER.readTree(JsonRenderer.create().renderToString(end));
        assertThat(json.get("op").asText()).isEqualTo("end");
        assertThat(json.get("source").has("commit_time")).isFalse();
        JsonNode tx = json.get("transaction");
        assertThat(tx.get("id").asText()).isEqualTo("0-1-7");
        assertThat(tx.get("event_count").asLong()).isEqualTo(7);
        List<String> tables = new ArrayList<>();
        tx.get("data_collections").forEach(t -> {
            assertThat(t.has("schema")).isFalse();
            tables.add(t.get("db").asText() + "." + t.get("table").asText() + "=" + t.get("event_count").asLong());
        });
        assertThat(tables).containsExactly("archive.orders=4", "shop.items=1", "shop.orders=2");
    }

    @Test
    void theJsonDeserializerEmitsMarkersOnlyWhenAskedTo() throws Exception {
        TransactionMarker begin = TransactionMarker.begin("1", SourceInfo.stream("postgres", new TestPosition(1), null));
        List<String> out = new ArrayList<>();
        ChangeEventDeserializer.json().transactionMarker(begin, new ListCollector<>(out));
        ChangeEventDeserializer.events().transactionMarker(begin, null);
        assertThat(out).isEmpty();
        ChangeEventDeserializer.json(JsonRenderer.create(), true).transactionMarker(begin, new ListCollector<>(out));
        assertThat(out).hasSize(1);
        assertThat(MAPPER.readTree(out.get(0)).get("op").asText()).isEqualTo("begin");
    }
}
