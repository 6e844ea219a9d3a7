package io.rustcdc.flink.source.json;

import com.fasterxml.jackson.core.JsonGenerator;
import io.rustcdc.flink.source.model.RowShape;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.annotation.Internal;

/**
 * Writes the envelope's {@code shape} object: a table's shape is the same JSON for every row of the
 * table, so it is rendered once per shape id and kept (bounded: a job sees few shapes). Thread-safe.
 */
@Internal
final class ShapeJson implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Shapes rendered so far, by id; bounded, as a job sees few shapes. */
    private static final int MAX_CACHED_SHAPES = 4096;

    private final ShapeRendering shapeRendering;
    private transient Map<String, String> renderedShapes;

    ShapeJson(ShapeRendering shapeRendering) {
        this.shapeRendering = shapeRendering;
    }

    /** Writes the event's shape as the rendering setting says, rendered once per shape id. */
    void writeShape(JsonGenerator g, RowShape shape) throws IOException {
        Map<String, String> rendered = renderedShapes;
        if (rendered == null) {
            rendered = new ConcurrentHashMap<>();
            renderedShapes = rendered;
        }
        String json = rendered.get(shape.id());
        if (json == null) {
            json = shapeJson(shape, shapeRendering == ShapeRendering.FULL);
            if (rendered.size() >= MAX_CACHED_SHAPES) {
                rendered.clear();
            }
            rendered.put(shape.id(), json);
        }
        g.writeRawValue(json);
    }

    /** The shape as a JSON object, in full or as its id and table only. */
    static String shapeJson(RowShape shape, boolean full) {
        StringBuilderWriter out = new StringBuilderWriter(256);
        try (JsonGenerator g = JsonRenderer.FACTORY.createGenerator(out)) {
            writeShapeObject(g, shape, full);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static void writeShapeObject(JsonGenerator g, RowShape shape, boolean full) throws IOException {
        g.writeStartObject();
        g.writeStringField("id", shape.id());
        g.writeStringField("schema", shape.schema());
        g.writeStringField("table", shape.table());
        if (full) {
            g.writeArrayFieldStart("columns");
            for (RowShape.Column c : shape.columns()) {
                g.writeStartObject();
                g.writeStringField("name", c.name());
                g.writeStringField("data_type", c.dataType());
                g.writeBooleanField("nullable", c.nullable());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("primary_key");
            for (String k : shape.primaryKey()) {
                g.writeString(k);
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }
}
