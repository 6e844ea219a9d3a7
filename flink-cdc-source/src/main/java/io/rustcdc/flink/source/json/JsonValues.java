package io.rustcdc.flink.source.json;

import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueType;
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

    private static final byte[] BASE64_FIELD = "{\"_base64\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final WideIntegers wideIntegers;

    JsonValues(WideIntegers wideIntegers) {
        this.wideIntegers = wideIntegers;
    }

    /** Writes the present fields of {@code row} as an object; a missing field is left out, never null. */
    void writeRow(JsonBuffer out, Row row) {
        writeRow(out, row, null);
    }

    /** Writes {@code row} as an object, a missing field as {@code missing}, or left out where that is null. */
    void writeRow(JsonBuffer out, Row row, @Nullable String missing) {
        RowType type = row.type();
        out.ascii('{');
        boolean first = true;
        for (int i = 0; i < row.size(); i++) {
            boolean present = row.isPresent(i);
            if (!present && missing == null) {
                continue;
            }
            if (!first) {
                out.comma();
            }
            first = false;
            out.name(type, i);
            if (present) {
                writeValue(out, type.type(i), row.get(i), type.name(i));
            } else {
                out.string(missing);
            }
        }
        out.ascii('}');
    }

    private void writeValue(JsonBuffer g, ValueType type, Object v, String field) {
        if (v == null) {
            g.nullValue();
            return;
        }
        try {
            switch (type.kind()) {
                case BOOLEAN:
                    g.bool((Boolean) v);
                    break;
                case INTEGER:
                    g.number((long) (Long) v);
                    break;
                case BIGINT:
                    writeWide(g, (long) (Long) v);
                    break;
                case UNSIGNED_BIGINT:
                    writeWide(g, ((BigInteger) v).toString());
                    break;
                case DECIMAL:
                    if (v instanceof SpecialValue) {
                        g.string(((SpecialValue) v).numericText());
                    } else {
                        DecimalText.write(g, (BigDecimal) v);
                    }
                    break;
                case FLOAT32:
                    writeFloat(g, (Float) v);
                    break;
                case FLOAT64:
                    writeDouble(g, (Double) v);
                    break;
                case TEXT:
                    g.string((String) v);
                    break;
                case BYTES:
                case BITS:
                    g.raw(BASE64_FIELD).base64((byte[]) v).ascii('}');
                    break;
                case DATE:
                    if (v instanceof SpecialValue) {
                        g.string(((SpecialValue) v).temporalText());
                    } else {
                        TemporalText.date(g, (LocalDate) v);
                    }
                    break;
                case TIME:
                    TemporalText.time(g, (Duration) v, type.precision());
                    break;
                case TIMESTAMP:
                    if (v instanceof SpecialValue) {
                        g.string(((SpecialValue) v).temporalText());
                    } else {
                        TemporalText.timestamp(g, (LocalDateTime) v, type.precision());
                    }
                    break;
                case TIMESTAMP_TZ:
                    if (v instanceof SpecialValue) {
                        g.string(((SpecialValue) v).temporalText());
                    } else {
                        TemporalText.instant(g, (Instant) v, type.precision());
                    }
                    break;
                case UUID:
                    g.string(((UUID) v).toString());
                    break;
                case ARRAY:
                    g.ascii('[');
                    // PostgreSQL fixes no dimension count in a column's type: a nested list is a
                    // sub-array of the same array type, anything else an element.
                    boolean first = true;
                    for (Object element : (List<?>) v) {
                        if (!first) {
                            g.comma();
                        }
                        first = false;
                        writeValue(g, element instanceof List ? type : type.element(), element, field);
                    }
                    g.ascii(']');
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

    /** A bigint's digits as {@link #writeWide(JsonBuffer, String)} writes its text, without making the text. */
    private void writeWide(JsonBuffer g, long n) {
        if (wideIntegers == WideIntegers.STRING) {
            g.ascii('"').number(n).ascii('"');
        } else {
            g.number(n);
        }
    }

    private void writeWide(JsonBuffer g, String digits) {
        if (wideIntegers == WideIntegers.STRING) {
            g.string(digits);
        } else {
            g.rawAscii(digits);
        }
    }

    private static void writeFloat(JsonBuffer g, float f) {
        if (Float.isFinite(f)) {
            g.number(f);
        } else {
            g.string(nonFinite(f));
        }
    }

    private static void writeDouble(JsonBuffer g, double d) {
        if (Double.isFinite(d)) {
            g.number(d);
        } else {
            g.string(nonFinite(d));
        }
    }

    private static String nonFinite(double d) {
        return Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
    }
}
