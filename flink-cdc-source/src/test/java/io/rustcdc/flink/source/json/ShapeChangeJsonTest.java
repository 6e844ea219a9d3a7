package io.rustcdc.flink.source.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.TestPosition;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A schema change event's classes in JSON: an added field, the envelope otherwise unchanged. */
class ShapeChangeJsonTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TableId TABLE = TableId.of("shop", "public", "orders");
    private static final RowShape.Column AMOUNT = RowShape.Column.of("amount", "numeric(12,4)", false);
    private static final RowShape.Column NOTE = RowShape.Column.of("note", "text", true);

    private static ChangeEvent.Builder event() {
        RowShape shape = RowShape.of("public", "orders", List.of(AMOUNT, NOTE), List.of("amount"));
        return ChangeEvent.builder(Op.SCHEMA_CHANGE, TABLE, SourceInfo.stream("test", new TestPosition(7), null))
                .after(SchemaChangeRows.of(TABLE, DdlType.ALTER_TABLE, null)).shape(shape);
    }

    @Test
    void classifiedChangesAreAnArrayOfClassesAndColumns() throws Exception {
        ChangeEvent e = event().shapeChanges(List.of(ShapeChange.columnAdded(NOTE, 1),
                ShapeChange.primaryKeyChanged(List.of(), List.of("amount")),
                ShapeChange.unknown(List.of(AMOUNT), List.of(NOTE), "why"))).build();
        JsonNode changes = MAPPER.readTree(JsonRenderer.create().renderToString(e)).get("schema_changes");
        assertThat(changes.toString()).isEqualTo("[{\"class\":\"column_added\",\"before\":[],"
                + "\"after\":[{\"name\":\"note\",\"data_type\":\"text\",\"nullable\":true}],\"position\":1},"
                + "{\"class\":\"primary_key_changed\",\"before\":[],\"after\":[],\"key_before\":[],\"key_after\":[\"amount\"]},"
                + "{\"class\":\"unknown\",\"before\":[{\"name\":\"amount\",\"data_type\":\"numeric(12,4)\",\"nullable\":false}],"
                + "\"after\":[{\"name\":\"note\",\"data_type\":\"text\",\"nullable\":true}],\"reason\":\"why\"}]");
    }

    @Test
    void anEventWithoutClassesRendersAsBefore() throws Exception {
        JsonNode json = MAPPER.readTree(JsonRenderer.create().renderToString(event().build()));
        assertThat(json.has("schema_changes")).isFalse();
        assertThat(json.get("after").get("ddl_type").asText()).isEqualTo("ALTER_TABLE");
        assertThat(json.get("table").asText()).isEqualTo("orders__ddl_events");
    }
}
