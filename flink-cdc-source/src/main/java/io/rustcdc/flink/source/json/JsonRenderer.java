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
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.model.ValueType;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
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

    private static final JsonFactory FACTORY = JsonFactory.builder()
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
    private static final ThreadLocal<StringBuilderWriter> STRING_BUFFER =
            ThreadLocal.withInitial(() -> new StringBuilderWriter(4096));
    /** Shapes rendered so far, by id; bounded, as a job sees few shapes. */
    private static final int MAX_CACHED_SHAPES = 4096;

    private final WideIntegers wideIntegers;
    private final ShapeRendering shapeRendering;
    // a table's shape is the same JSON for every row of the table: rendered once
    private transient Map<String, String> renderedShapes;

    private JsonRenderer(WideIntegers wideIntegers, ShapeRendering shapeRendering) {
        this.wideIntegers = wideIntegers;
        this.shapeRendering = shapeRendering;
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

    /**
     * The shape alone as the JSON object the envelope's {@code shape} field holds, in full whatever
     * the shape rendering setting: for consumers that show or store shapes apart from rows.
     */
    public String renderShape(RowShape shape) {
        return shapeJson(shape, true);
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
            writeRow(g, e.before());
        }
        if (e.after() != null) {
            g.writeFieldName(AFTER);
            writeRow(g, e.after());
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
            writeShape(g, e.shape());
        }
        g.writeEndObject();
    }

    private void writeSource(JsonGenerator g, ChangeEvent e) throws IOException {
        SourceInfo s = e.source();
        g.writeFieldName(SOURCE);
        g.writeStartObject();
        g.writeFieldName(CONNECTOR);
        g.writeString(s.connector());
        g.writeFieldName(DB);
        g.writeString(e.table().database());
        g.writeFieldName(SCHEMA);
        g.writeString(e.table().schema());
        g.writeFieldName(TABLE);
        g.writeString(e.table().table());
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

    private void writeShape(JsonGenerator g, RowShape shape) throws IOException {
        g.writeFieldName(SHAPE);
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

    private static String shapeJson(RowShape shape, boolean full) {
        StringBuilderWriter out = new StringBuilderWriter(256);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
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

    private void writeRow(JsonGenerator g, Row row) throws IOException {
        RowType type = row.type();
        g.writeStartObject();
        for (int i = 0; i < row.size(); i++) {
            if (row.isPresent(i)) {
                g.writeFieldName(type.name(i));
                writeValue(g, type.type(i), row.get(i), type.name(i));
            }
        }
        g.writeEndObject();
    }

    private void writeValue(JsonGenerator g, ValueType type, Object v, String field) throws IOException {
        if (v == null) {
            g.writeNull();
            return;
        }
        try {
            switch (type.kind()) {
                case BOOLEAN:
                    g.writeBoolean((Boolean) v);
                    break;
                case INTEGER:
                    g.writeNumber((Long) v);
                    break;
                case BIGINT:
                    writeWide(g, ((Long) v).toString());
                    break;
                case UNSIGNED_BIGINT:
                    writeWide(g, ((BigInteger) v).toString());
                    break;
                case DECIMAL:
                    g.writeString(v instanceof SpecialValue ? ((SpecialValue) v).numericText() : ((BigDecimal) v).toPlainString());
                    break;
                case FLOAT32:
                    writeFloat(g, (Float) v);
                    break;
                case FLOAT64:
                    writeDouble(g, (Double) v);
                    break;
                case TEXT:
                    g.writeString((String) v);
                    break;
                case BYTES:
                case BITS:
                    g.writeStartObject();
                    g.writeFieldName("_base64");
                    g.writeBinary((byte[]) v);
                    g.writeEndObject();
                    break;
                case DATE:
                    g.writeString(v instanceof SpecialValue ? ((SpecialValue) v).temporalText() : TemporalText.date((LocalDate) v));
                    break;
                case TIME:
                    g.writeString(TemporalText.time((Duration) v, type.precision()));
                    break;
                case TIMESTAMP:
                    g.writeString(v instanceof SpecialValue ? ((SpecialValue) v).temporalText()
                            : TemporalText.timestamp((LocalDateTime) v, type.precision()));
                    break;
                case TIMESTAMP_TZ:
                    g.writeString(v instanceof SpecialValue ? ((SpecialValue) v).temporalText()
                            : TemporalText.instant((Instant) v, type.precision()));
                    break;
                case UUID:
                    g.writeString(((UUID) v).toString());
                    break;
                case ARRAY:
                    g.writeStartArray();
                    // PostgreSQL fixes no dimension count in a column's type: a nested list is a
                    // sub-array of the same array type, anything else an element.
                    for (Object element : (List<?>) v) {
                        writeValue(g, element instanceof List ? type : type.element(), element, field);
                    }
                    g.writeEndArray();
                    break;
                default:
                    throw new IllegalStateException("No JSON rendering for " + type.kind());
            }
        } catch (ClassCastException e) {
            // A connector put a value of the wrong Java type into a field: a bug, named without the value.
            throw new IllegalStateException("Field " + field + " of kind " + type + " holds a "
                    + v.getClass().getName(), e);
        }
    }

    private void writeWide(JsonGenerator g, String digits) throws IOException {
        if (wideIntegers == WideIntegers.STRING) {
            g.writeString(digits);
        } else {
            g.writeNumber(digits);
        }
    }

    private static void writeFloat(JsonGenerator g, float f) throws IOException {
        if (Float.isFinite(f)) {
            g.writeNumber(f);
        } else {
            g.writeString(nonFinite(f));
        }
    }

    private static void writeDouble(JsonGenerator g, double d) throws IOException {
        if (Double.isFinite(d)) {
            g.writeNumber(d);
        } else {
            g.writeString(nonFinite(d));
        }
    }

    private static String nonFinite(double d) {
        return Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
    }

    /**
     * A writer into a growable char array: unlike StringWriter, without a lock on every write, and
     * unlike a StringBuilder, without checking each char for the compact string form as it is
     * appended; the one String made at the end is compacted at once.
     */
    private static final class StringBuilderWriter extends Writer {
        private char[] chars;
        private int length;

        StringBuilderWriter(int capacity) {
            chars = new char[capacity];
        }

        void reset() {
            if (chars.length > 1 << 20) {
                chars = new char[4096]; // a huge event once does not pin a huge buffer
            }
            length = 0;
        }

        private void room(int more) {
            if (length + more > chars.length) {
                chars = java.util.Arrays.copyOf(chars, Math.max(chars.length * 2, length + more));
            }
        }

        @Override
        public void write(char[] buffer, int offset, int count) {
            room(count);
            System.arraycopy(buffer, offset, chars, length, count);
            length += count;
        }

        @Override
        public void write(String str, int offset, int count) {
            room(count);
            str.getChars(offset, offset + count, chars, length);
            length += count;
        }

        @Override
        public void write(int c) {
            room(1);
            chars[length++] = (char) c;
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}

        @Override
        public String toString() {
            return new String(chars, 0, length);
        }
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
