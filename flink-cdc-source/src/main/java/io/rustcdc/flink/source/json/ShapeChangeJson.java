package io.rustcdc.flink.source.json;

import com.fasterxml.jackson.core.JsonGenerator;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ShapeChange;
import java.io.IOException;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * Writes a schema change event's {@code schema_changes} array: one object per classified change,
 * {@code {"class": "column_type_changed", "before": [columns], "after": [columns]}}, with {@code
 * position} for an added column, {@code key_before}/{@code key_after} for a key change and {@code
 * reason} where the source gave one. Columns are written as in a shape ({@code name}, {@code
 * data_type}, {@code nullable}). A field added to the envelope: documents without it stay valid.
 */
@Internal
final class ShapeChangeJson {
    static final String FIELD = "schema_changes";

    private ShapeChangeJson() {}

    static void write(JsonGenerator g, List<ShapeChange> changes) throws IOException {
        g.writeArrayFieldStart(FIELD);
        for (ShapeChange c : changes) {
            g.writeStartObject();
            g.writeStringField("class", c.kind().wireName());
            writeColumns(g, "before", c.before());
            writeColumns(g, "after", c.after());
            if (c.kind() == ShapeChange.Kind.COLUMN_ADDED) {
                g.writeNumberField("position", c.position());
            }
            if (c.kind() == ShapeChange.Kind.PRIMARY_KEY_CHANGED || !c.keyAfter().isEmpty()) {
                writeNames(g, "key_before", c.keyBefore());
                writeNames(g, "key_after", c.keyAfter());
            }
            if (!c.reason().isEmpty()) {
                g.writeStringField("reason", c.reason());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void writeColumns(JsonGenerator g, String field, List<RowShape.Column> columns) throws IOException {
        g.writeArrayFieldStart(field);
        for (RowShape.Column column : columns) {
            g.writeStartObject();
            g.writeStringField("name", column.name());
            g.writeStringField("data_type", column.dataType());
            g.writeBooleanField("nullable", column.nullable());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void writeNames(JsonGenerator g, String field, List<String> names) throws IOException {
        g.writeArrayFieldStart(field);
        for (String name : names) {
            g.writeString(name);
        }
        g.writeEndArray();
    }
}
