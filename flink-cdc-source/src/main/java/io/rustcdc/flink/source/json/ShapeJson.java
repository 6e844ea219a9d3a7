package io.rustcdc.flink.source.json;

import io.rustcdc.flink.source.model.RowShape;
import java.io.Serializable;
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
    private transient Map<String, byte[]> renderedShapes;

    ShapeJson(ShapeRendering shapeRendering) {
        this.shapeRendering = shapeRendering;
    }

    /** Writes the event's shape as the rendering setting says, rendered once per shape id. */
    void writeShape(JsonBuffer out, RowShape shape) {
        Map<String, byte[]> rendered = renderedShapes;
        if (rendered == null) {
            rendered = new ConcurrentHashMap<>();
            renderedShapes = rendered;
        }
        byte[] json = rendered.get(shape.id());
        if (json == null) {
            JsonBuffer alone = new JsonBuffer(256).reset(false);
            boolean full = shapeRendering == ShapeRendering.FULL;
            writeShapeObject(alone, shape, full);
            if (alone.hasUnpairedSurrogate()) {
                // its bytes differ between the string and the byte form: written in place, not kept
                writeShapeObject(out, shape, full);
                return;
            }
            json = alone.toByteArray();
            if (rendered.size() >= MAX_CACHED_SHAPES) {
                rendered.clear();
            }
            rendered.put(shape.id(), json);
        }
        out.raw(json);
    }

    /** The shape as a JSON object, in full or as its id and table only. */
    static String shapeJson(RowShape shape, boolean full) {
        JsonBuffer out = new JsonBuffer(256).reset(false);
        writeShapeObject(out, shape, full);
        return out.toString();
    }

    private static void writeShapeObject(JsonBuffer out, RowShape shape, boolean full) {
        out.ascii('{').name("id").string(shape.id());
        out.comma().name("schema").string(shape.schema());
        out.comma().name("table").string(shape.table());
        if (full) {
            out.comma();
            ShapeChangeJson.writeColumns(out, "columns", shape.columns());
            out.comma().name("primary_key");
            JsonRenderer.stringArray(out, shape.primaryKey());
        }
        out.ascii('}');
    }
}
