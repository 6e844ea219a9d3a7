package io.rustcdc.flink.source.json;

import com.fasterxml.jackson.core.JsonGenerator;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueType;
import java.io.IOException;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.UUID;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * Writes rows and values by their fields' {@link io.rustcdc.flink.source.model.ValueKind}, type
 * mapping v2 (docs/native-json.md): a type is never guessed from a value. Immutable, thread-safe.
 */
@Internal
final class JsonValues implements Serializable {
    private static final long serialVersionUID = 1L;

    private final WideIntegers wideIntegers;

    JsonValues(WideIntegers wideIntegers) {
        this.wideIntegers = wideIntegers;
    }

    /** Writes the present fields of {@code row} as an object; a missing field is left out, never null. */
    void writeRow(JsonGenerator g, Row row) throws IOException {
        writeRow(g, row, null);
    }

    /** Writes {@code row} as an object, a missing field as {@code missing}, or left out where that is null. */
    void writeRow(JsonGenerator g, Row row, @Nullable String missing) throws IOException {
        RowType type = row.type();
        g.writeStartObject();
        for (int i = 0; i < row.size(); i++) {
            if (row.isPresent(i)) {
                g.writeFieldName(type.name(i));
                writeValue(g, type.type(i), row.get(i), type.name(i));
            } else if (missing != null) {
                g.writeStringField(type.name(i), missing);
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
                    g.writeString(v instanceof SpecialValue ? ((SpecialValue) v).numericText()
                            : ((BigDecimal) v).toPlainString());
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
                    g.writeString(v instanceof SpecialValue ? ((SpecialValue) v).temporalText()
                            : TemporalText.date((LocalDate) v));
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
}
