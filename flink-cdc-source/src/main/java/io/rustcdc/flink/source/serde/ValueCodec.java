package io.rustcdc.flink.source.serde;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Writes one decoded value exactly, by its column's {@link ValueType}: a tag byte, then the value in
 * the Java type of its {@link ValueKind}. Decimals keep their scale (unscaled digits and scale, of any
 * size), floats their bits (NaN payloads and signed zeros too), text every UTF-16 unit (lone
 * surrogates too), special values their type (and a zero date its text); an array's elements are
 * values of its element type or nested lists. Stateless.
 */
@Internal
public final class ValueCodec {
    /** SQL NULL. */
    static final byte NULL = 1;
    /** A value of its kind's Java type. */
    static final byte ORDINARY = 2;
    /** A {@link SpecialValue}. */
    static final byte SPECIAL = 3;
    /** A nested list in an array (a dimension of a multi-dimensional array). */
    static final byte LIST = 4;

    /** The codes of special value types, here and in chunk keys; never change or reuse one. */
    public static final EnumCodes<SpecialValue.Type> SPECIALS = EnumCodes.of(SpecialValue.Type.class,
            "special value", Map.of(SpecialValue.Type.NAN, 1, SpecialValue.Type.POSITIVE_INFINITY, 2,
                    SpecialValue.Type.NEGATIVE_INFINITY, 3, SpecialValue.Type.ZERO_DATE, 4));

    private ValueCodec() {}

    /** Writes {@code value} of a column of {@code type}: null, a special value, or its kind's Java type. */
    public static void write(DataOutputView out, ValueType type, @Nullable Object value) throws IOException {
        if (value == null) {
            out.writeByte(NULL);
        } else if (value instanceof SpecialValue) {
            out.writeByte(SPECIAL);
            writeSpecial(out, (SpecialValue) value);
        } else if (type.kind() == ValueKind.ARRAY) {
            out.writeByte(LIST);
            writeList(out, type.element(), (List<?>) value);
        } else {
            out.writeByte(ORDINARY);
            writeOrdinary(out, type.kind(), value);
        }
    }

    /** Reads what {@link #write} wrote for {@code type}. */
    @Nullable
    public static Object read(DataInputView in, ValueType type) throws IOException {
        return read(in, in.readByte(), type);
    }

    @Nullable
    static Object read(DataInputView in, byte tag, ValueType type) throws IOException {
        switch (tag) {
            case NULL:
                return null;
            case SPECIAL:
                return readSpecial(in, SPECIALS.read(in));
            case LIST:
                if (type.kind() != ValueKind.ARRAY) {
                    throw new IOException("A list where a value of kind " + type.kind() + " was written");
                }
                return readList(in, type.element());
            case ORDINARY:
                return readOrdinary(in, type.kind());
            default:
                throw new IOException("Unknown value tag " + tag);
        }
    }

    /** An array's elements are of {@code element}'s kind, or lists again (its further dimensions). */
    private static void writeList(DataOutputView out, ValueType element, List<?> list) throws IOException {
        out.writeInt(list.size());
        for (Object e : list) {
            if (e instanceof List && element.kind() != ValueKind.ARRAY) {
                out.writeByte(LIST);
                writeList(out, element, (List<?>) e);
            } else {
                write(out, element, e);
            }
        }
    }

    private static List<Object> readList(DataInputView in, ValueType element) throws IOException {
        int n = StateIO.readCount(in);
        List<Object> list = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) {
            byte tag = in.readByte();
            list.add(tag == LIST && element.kind() != ValueKind.ARRAY ? readList(in, element) : read(in, tag, element));
        }
        return Collections.unmodifiableList(list);
    }

    /** Writes {@code special}: its type's code, and a zero date's text. Chunk keys share this. */
    public static void writeSpecial(DataOutputView out, SpecialValue special) throws IOException {
        SPECIALS.write(out, special.type());
        if (special.type() == SpecialValue.Type.ZERO_DATE) {
            StateIO.writeString(out, special.temporalText());
        }
    }

    /** The special value of {@code type}, whose code was read: reads a zero date's text. */
    public static SpecialValue readSpecial(DataInputView in, SpecialValue.Type type) throws IOException {
        switch (type) {
            case NAN:
                return SpecialValue.NAN;
            case POSITIVE_INFINITY:
                return SpecialValue.POSITIVE_INFINITY;
            case NEGATIVE_INFINITY:
                return SpecialValue.NEGATIVE_INFINITY;
            default:
                return SpecialValue.zeroDate(StateIO.readString(in));
        }
    }

    /**
     * Writes {@code v}, a value of {@code kind}'s Java type, without a tag; chunk keys share these
     * encodings for the kinds they hold (but decimals and text).
     */
    public static void writeOrdinary(DataOutputView out, ValueKind kind, Object v) throws IOException {
        switch (kind) {
            case BOOLEAN:
                out.writeBoolean((Boolean) v);
                break;
            case INTEGER:
            case BIGINT:
                out.writeLong((Long) v);
                break;
            case UNSIGNED_BIGINT:
                writeBytes(out, ((BigInteger) v).toByteArray());
                break;
            case DECIMAL:
                out.writeInt(((BigDecimal) v).scale());
                writeBytes(out, ((BigDecimal) v).unscaledValue().toByteArray());
                break;
            case FLOAT32:
                out.writeInt(Float.floatToRawIntBits((Float) v));
                break;
            case FLOAT64:
                out.writeLong(Double.doubleToRawLongBits((Double) v));
                break;
            case TEXT:
                StringValue.writeString((String) v, out);
                break;
            case BYTES:
            case BITS:
                writeBytes(out, (byte[]) v);
                break;
            case DATE:
                out.writeLong(((LocalDate) v).toEpochDay());
                break;
            case TIME:
                out.writeLong(((Duration) v).getSeconds());
                out.writeInt(((Duration) v).getNano());
                break;
            case TIMESTAMP:
                out.writeLong(((LocalDateTime) v).toLocalDate().toEpochDay());
                out.writeLong(((LocalDateTime) v).toLocalTime().toNanoOfDay());
                break;
            case TIMESTAMP_TZ:
                out.writeLong(((Instant) v).getEpochSecond());
                out.writeInt(((Instant) v).getNano());
                break;
            case UUID:
                out.writeLong(((UUID) v).getMostSignificantBits());
                out.writeLong(((UUID) v).getLeastSignificantBits());
                break;
            default:
                throw new IOException("No ordinary value of kind " + kind);
        }
    }

    /** Reads what {@link #writeOrdinary} wrote. */
    public static Object readOrdinary(DataInputView in, ValueKind kind) throws IOException {
        switch (kind) {
            case BOOLEAN:
                return in.readBoolean();
            case INTEGER:
            case BIGINT:
                return in.readLong();
            case UNSIGNED_BIGINT:
                return new BigInteger(readBytes(in));
            case DECIMAL: {
                int scale = in.readInt();
                return new BigDecimal(new BigInteger(readBytes(in)), scale);
            }
            case FLOAT32:
                return Float.intBitsToFloat(in.readInt());
            case FLOAT64:
                return Double.longBitsToDouble(in.readLong());
            case TEXT:
                return StringValue.readString(in);
            case BYTES:
            case BITS:
                return readBytes(in);
            case DATE:
                return LocalDate.ofEpochDay(in.readLong());
            case TIME:
                return Duration.ofSeconds(in.readLong(), in.readInt());
            case TIMESTAMP:
                return LocalDateTime.of(LocalDate.ofEpochDay(in.readLong()), LocalTime.ofNanoOfDay(in.readLong()));
            case TIMESTAMP_TZ:
                return Instant.ofEpochSecond(in.readLong(), in.readInt());
            case UUID:
                return new UUID(in.readLong(), in.readLong());
            default:
                throw new IOException("No ordinary value of kind " + kind);
        }
    }

    private static void writeBytes(DataOutputView out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] readBytes(DataInputView in) throws IOException {
        byte[] b = new byte[StateIO.readCount(in)];
        in.readFully(b);
        return b;
    }
}
