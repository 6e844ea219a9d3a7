package io.rustcdc.flink.source.json;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
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
import java.io.UncheckedIOException;
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

    static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER) // shortest exact digits
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8) // 4-byte UTF-8, not escaped surrogate pairs
            .build();

    // field names pre-quoted once, instead of checked character by character for every event
    private static final SerializableString OP = new SerializedString("op");
    private static final SerializableString SCHEMA = new SerializedString("schema");
    private static final SerializableString TABLE = new SerializedString("table");
    private static final SerializableString BEFORE = new SerializedString("before");
    private static final SerializableString AFTER = new SerializedString("after");
    private static final SerializableString SOURCE = new SerializedString("source");
    private static final SerializableString CONNECTOR = new SerializedString("connector");
    private static final SerializableString DB = new SerializedString("db");
    private static final SerializableString POSITION = new SerializedString("position");
    private static final SerializableString COMMIT_TIME = new SerializedString("commit_time");
    private static final SerializableString SNAPSHOT = new SerializedString("snapshot");
    private static final SerializableString TYPE_MAPPING = new SerializedString("type_mapping");
    private static final SerializableString SHAPE = new SerializedString("shape");
    /** One buffer per thread for string renderings, reused, so that it grows once rather than per event. */
    static final ThreadLocal<StringBuilderWriter> STRING_BUFFER =
            ThreadLocal.withInitial(() -> new StringBuilderWriter(4096));
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
        try (ByteArrayBuilder bytes = new ByteArrayBuilder(512)) {
            try (JsonGenerator g = FACTORY.createGenerator(bytes, JsonEncoding.UTF8)) {
                write(g, event);
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The event as a JSON string: the same document as {@link #render(ChangeEvent)}, written as
     * characters, without encoding to UTF-8 and decoding back.
     */
    public String renderToString(ChangeEvent event) {
        StringBuilderWriter out = STRING_BUFFER.get();
        out.reset();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            write(g, event);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** A transaction's begin or end marker as a JSON string (see {@link MarkerJson} for its fields). */
    public String renderToString(TransactionMarker marker) {
        StringBuilderWriter out = STRING_BUFFER.get();
        out.reset();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            MarkerJson.write(g, marker);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
        try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            write(g, event);
        }
    }

    private void write(JsonGenerator g, ChangeEvent e) throws IOException {
        g.writeStartObject();
        g.writeFieldName(OP);
        g.writeString(e.op().wireName());
        g.writeFieldName(SCHEMA);
        g.writeString(e.table().schema());
        // a schema change is published under a name of its own, so that no consumer of the table's
        // rows mistakes it for one
        g.writeFieldName(TABLE);
        g.writeString(e.op() == Op.SCHEMA_CHANGE ? e.table().table() + "__ddl_events" : e.table().table());
        if (e.before() != null) {
            g.writeFieldName(BEFORE);
            values.writeRow(g, e.before());
        }
        if (e.after() != null) {
            g.writeFieldName(AFTER);
            values.writeRow(g, e.after());
        }
        List<String> unchanged = e.unchangedColumns();
        if (!unchanged.isEmpty()) {
            g.writeArrayFieldStart("unchanged_columns");
            for (String name : unchanged) {
                g.writeString(name);
            }
            g.writeEndArray();
        }
        writeSource(g, e);
        if (e.transaction() != null) {
            writeTransaction(g, e.transaction());
        }
        if (e.shape() != null) {
            g.writeFieldName(SHAPE);
            shapes.writeShape(g, e.shape());
        }
        if (!e.shapeChanges().isEmpty()) {
            ShapeChangeJson.write(g, e.shapeChanges());
        }
        g.writeEndObject();
    }

    private void writeSource(JsonGenerator g, ChangeEvent e) throws IOException {
        writeSource(g, e.source(), e.table());
    }

    /** The {@code source} object: {@code table}'s names when there is one (a transaction marker has none). */
    static void writeSource(JsonGenerator g, SourceInfo s, @Nullable TableId table) throws IOException {
        g.writeFieldName(SOURCE);
        g.writeStartObject();
        g.writeFieldName(CONNECTOR);
        g.writeString(s.connector());
        if (table != null) {
            g.writeFieldName(DB);
            g.writeString(table.database());
            g.writeFieldName(SCHEMA);
            g.writeString(table.schema());
            g.writeFieldName(TABLE);
            g.writeString(table.table());
        }
        if (s.position() != null) {
            g.writeFieldName(POSITION);
            g.writeString(s.position().toString());
        }
        if (s.commitTime() != null) {
            g.writeFieldName(COMMIT_TIME);
            g.writeString(TemporalText.instant(s.commitTime(), ValueType.UNSPECIFIED_PRECISION));
        }
        g.writeFieldName(SNAPSHOT);
        g.writeBoolean(s.snapshot());
        g.writeFieldName(TYPE_MAPPING);
        g.writeString(s.typeMapping());
        g.writeEndObject();
    }

    private static void writeTransaction(JsonGenerator g, TransactionInfo t) throws IOException {
        g.writeObjectFieldStart("transaction");
        g.writeStringField("id", t.id());
        if (t.index() != TransactionInfo.UNKNOWN) {
            g.writeNumberField("index", t.index());
        }
        if (t.total() != TransactionInfo.UNKNOWN) {
            g.writeNumberField("total", t.total());
        }
        g.writeEndObject();
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
