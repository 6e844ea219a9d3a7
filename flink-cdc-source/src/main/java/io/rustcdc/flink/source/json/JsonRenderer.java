package io.rustcdc.flink.source.json;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.model.TransactionMarker;
import io.rustcdc.flink.source.model.ValueType;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Renders a {@link ChangeEvent} as native JSON, type mapping v2:
 *
 * <pre>{@code
 * {"op":"update","schema":"public","table":"orders",
 *  "before":{...},"after":{...},"unchanged_columns":["note"],
 *  "source":{"connector":"postgres","db":"shop","schema":"public","table":"orders",
 *            "position":"0/16B3748","commit_time":"2024-03-30T23:30:00Z","snapshot":false,
 *            "type_mapping":"v2"},
 *  "transaction":{"id":"768","index":1,"total":3},
 *  "shape":{"id":"b624...","schema":"public","table":"orders","columns":[...],"primary_key":["id"]}}
 * }</pre>
 *
 * <p>Each value is written by its field's {@link io.rustcdc.flink.source.model.ValueKind}: a
 * type is never guessed from a value. A field the source did not supply is left out of {@code
 * after} and listed in {@code unchanged_columns}, never written as null. {@code before}, {@code
 * after}, {@code unchanged_columns}, {@code transaction} and {@code shape} are left out when the
 * event has none. Thread-safe.
 *
 * <pre>{@code
 * byte[] json = JsonRenderer.builder().wideIntegers(WideIntegers.NUMBER).build().render(event);
 * }</pre>
 */
@PublicEvolving
public final class JsonRenderer implements Serializable {
    private static final long serialVersionUID = 1L;

    // field names pre-quoted once, instead of checked character by character for every event (the shared ones
    // package-private: the Debezium envelope writes them too)
    static final byte[] OP = JsonBuffer.fieldName("op");
    static final byte[] SCHEMA = JsonBuffer.fieldName("schema");
    static final byte[] TABLE = JsonBuffer.fieldName("table");
    static final byte[] BEFORE = JsonBuffer.fieldName("before");
    static final byte[] AFTER = JsonBuffer.fieldName("after");
    private static final byte[] UNCHANGED = JsonBuffer.fieldName("unchanged_columns");
    static final byte[] SOURCE = JsonBuffer.fieldName("source");
    static final byte[] CONNECTOR = JsonBuffer.fieldName("connector");
    static final byte[] DB = JsonBuffer.fieldName("db");
    static final byte[] POSITION = JsonBuffer.fieldName("position");
    private static final byte[] COMMIT_TIME = JsonBuffer.fieldName("commit_time");
    static final byte[] SNAPSHOT = JsonBuffer.fieldName("snapshot");
    private static final byte[] TYPE_MAPPING = JsonBuffer.fieldName("type_mapping");
    static final byte[] TRANSACTION = JsonBuffer.fieldName("transaction");
    static final byte[] ID = JsonBuffer.fieldName("id");
    private static final byte[] INDEX = JsonBuffer.fieldName("index");
    private static final byte[] TOTAL = JsonBuffer.fieldName("total");
    private static final byte[] SHAPE = JsonBuffer.fieldName("shape");
    /** One buffer per thread for native JSON, reused, so that it grows once rather than per event. */
    static final ThreadLocal<JsonBuffer> BUFFER = ThreadLocal.withInitial(() -> new JsonBuffer(4096));
    private final JsonValues values;
    private final ShapeJson shapes;

    private JsonRenderer(WideIntegers wideIntegers, ShapeRendering shapeRendering) {
        this.values = new JsonValues(wideIntegers);
        this.shapes = new ShapeJson(shapeRendering);
    }

    /** The renderer with default settings: wide integers as strings, full shapes. */
    public static JsonRenderer create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The event as UTF-8 JSON. */
    public byte[] render(ChangeEvent event) {
        JsonBuffer out = BUFFER.get().reset(true);
        write(out, event);
        return out.toByteArray();
    }

    /**
     * The event as a JSON string: the same document as {@link #render(ChangeEvent)}, decoded from
     * UTF-8 (an unpaired surrogate, which the bytes escape as {@code \uD800}, is kept as it is).
     */
    public String renderToString(ChangeEvent event) {
        JsonBuffer out = BUFFER.get().reset(false);
        write(out, event);
        return out.toString();
    }

    /** A transaction's begin or end marker as UTF-8 JSON (see {@link MarkerJson} for its fields). */
    public byte[] render(TransactionMarker marker) {
        JsonBuffer out = BUFFER.get().reset(true);
        MarkerJson.write(out, marker);
        return out.toByteArray();
    }

    /**
     * A transaction's begin or end marker as a JSON string: the same document as {@link
     * #render(TransactionMarker)}, decoded from UTF-8 (an unpaired surrogate, which the bytes escape as
     * {@code \uD800}, is kept as it is).
     */
    public String renderToString(TransactionMarker marker) {
        JsonBuffer out = BUFFER.get().reset(false);
        MarkerJson.write(out, marker);
        return out.toString();
    }

    /**
     * The shape alone as the JSON object the envelope's {@code shape} field holds, in full whatever
     * the shape rendering setting: for consumers that show or store shapes apart from rows.
     */
    public String renderShape(RowShape shape) {
        return ShapeJson.shapeJson(shape, true);
    }

    /** Writes the event as UTF-8 JSON to {@code out}, which stays open. */
    public void render(ChangeEvent event, OutputStream out) throws IOException {
        out.write(render(event));
    }

    private void write(JsonBuffer out, ChangeEvent e) {
        out.ascii('{').raw(OP).known(e.op().wireName());
        out.comma().raw(SCHEMA).known(e.table().schema());
        // a schema change is published under a name of its own, so that no consumer of the table's
        // rows mistakes it for one
        if (e.op() == Op.SCHEMA_CHANGE) {
            out.comma().raw(TABLE).string(e.table().table() + "__ddl_events");
        } else {
            out.comma().raw(TABLE).known(e.table().table());
        }
        if (e.before() != null) {
            out.comma().raw(BEFORE);
            values.writeRow(out, e.before());
        }
        if (e.after() != null) {
            out.comma().raw(AFTER);
            values.writeRow(out, e.after());
        }
        List<String> unchanged = e.unchangedColumns();
        if (!unchanged.isEmpty()) {
            out.comma().raw(UNCHANGED);
            stringArray(out, unchanged);
        }
        out.comma();
        writeSource(out, e.source(), e.table());
        if (e.transaction() != null) {
            out.comma();
            writeTransaction(out, e.transaction());
        }
        if (e.shape() != null) {
            out.comma().raw(SHAPE);
            shapes.writeShape(out, e.shape());
        }
        if (!e.shapeChanges().isEmpty()) {
            out.comma();
            ShapeChangeJson.write(out, e.shapeChanges());
        }
        out.ascii('}');
    }

    /** {@code ["a","b"]}. */
    static void stringArray(JsonBuffer out, List<String> strings) {
        out.ascii('[');
        for (int i = 0; i < strings.size(); i++) {
            if (i > 0) {
                out.comma();
            }
            out.string(strings.get(i));
        }
        out.ascii(']');
    }

    /** The {@code source} field: {@code table}'s names when there is one (a transaction marker has none). */
    static void writeSource(JsonBuffer out, SourceInfo s, @Nullable TableId table) {
        out.raw(SOURCE).ascii('{').raw(CONNECTOR).known(s.connector());
        if (table != null) {
            out.comma().raw(DB).known(table.database());
            out.comma().raw(SCHEMA).known(table.schema());
            out.comma().raw(TABLE).known(table.table());
        }
        if (s.position() != null) {
            s.position().writeTo(out.comma().raw(POSITION).ascii('"'));
            out.ascii('"');
        }
        if (s.commitTime() != null) {
            TemporalText.instant(out.comma().raw(COMMIT_TIME), s.commitTime(), ValueType.UNSPECIFIED_PRECISION);
        }
        out.comma().raw(SNAPSHOT).bool(s.snapshot());
        out.comma().raw(TYPE_MAPPING).known(s.typeMapping());
        out.ascii('}');
    }

    private static void writeTransaction(JsonBuffer out, TransactionInfo t) {
        out.raw(TRANSACTION).ascii('{').raw(ID).string(t.id());
        if (t.index() != TransactionInfo.UNKNOWN) {
            out.comma().raw(INDEX).number(t.index());
        }
        if (t.total() != TransactionInfo.UNKNOWN) {
            out.comma().raw(TOTAL).number(t.total());
        }
        out.ascii('}');
    }

    /** Builds a {@link JsonRenderer}. */
    @PublicEvolving
    public static final class Builder {
        private WideIntegers wideIntegers = WideIntegers.STRING;
        private ShapeRendering shapeRendering = ShapeRendering.FULL;

        private Builder() {}

        public Builder wideIntegers(WideIntegers wideIntegers) {
            this.wideIntegers = Objects.requireNonNull(wideIntegers, "wideIntegers");
            return this;
        }

        public Builder shapes(ShapeRendering shapeRendering) {
            this.shapeRendering = Objects.requireNonNull(shapeRendering, "shapeRendering");
            return this;
        }

        public JsonRenderer build() {
            return new JsonRenderer(wideIntegers, shapeRendering);
        }
    }
}
