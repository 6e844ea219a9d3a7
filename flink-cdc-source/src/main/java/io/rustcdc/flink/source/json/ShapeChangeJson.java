package io.rustcdc.flink.source.json;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ShapeChange;
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

    static void write(JsonBuffer out, List<ShapeChange> changes) {
        out.name(FIELD).ascii('[');
        for (int i = 0; i < changes.size(); i++) {
            ShapeChange c = changes.get(i);
            if (i > 0) {
                out.comma();
            }
            out.ascii('{').name("class").string(c.kind().wireName());
            out.comma();
            writeColumns(out, "before", c.before());
            out.comma();
            writeColumns(out, "after", c.after());
            if (c.kind() == ShapeChange.Kind.COLUMN_ADDED) {
                out.comma().name("position").number(c.position());
            }
            if (c.kind() == ShapeChange.Kind.PRIMARY_KEY_CHANGED || !c.keyAfter().isEmpty()) {
                out.comma().name("key_before");
                JsonRenderer.stringArray(out, c.keyBefore());
                out.comma().name("key_after");
                JsonRenderer.stringArray(out, c.keyAfter());
            }
            if (!c.reason().isEmpty()) {
                out.comma().name("reason").string(c.reason());
            }
            out.ascii('}');
        }
        out.ascii(']');
    }

    /** {@code "field":[{"name":..,"data_type":..,"nullable":..},..]}, as a shape's columns. */
    static void writeColumns(JsonBuffer out, String field, List<RowShape.Column> columns) {
        out.name(field).ascii('[');
        for (int i = 0; i < columns.size(); i++) {
            RowShape.Column column = columns.get(i);
            if (i > 0) {
                out.comma();
            }
            out.ascii('{').name("name").string(column.name());
            out.comma().name("data_type").string(column.dataType());
            out.comma().name("nullable").bool(column.nullable());
            out.ascii('}');
        }
        out.ascii(']');
    }
}
