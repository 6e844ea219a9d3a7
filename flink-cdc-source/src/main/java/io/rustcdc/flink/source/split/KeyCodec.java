package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.serde.EnumCodes;
import io.rustcdc.flink.source.serde.StateIO;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Writes chunk boundary keys into state, by their columns' value types: the kinds a connector's key
 * order may order, plus special values (infinities, NaN, and since nested format 2 MySQL zero dates
 * with their text; text as UTF-8, written only by split format 5 and later). A tag byte precedes each value; a special value's type is an explicit code
 * since format 2 (format 1 wrote its ordinal).
 */
@Internal
public final class KeyCodec {
    private static final byte NULL = 0;
    private static final byte ORDINARY = 1;
    private static final byte SPECIAL = 2;

    /** The special value types in the order format 1 wrote their ordinals; frozen. */
    private static final SpecialValue.Type[] FORMAT_1_SPECIALS = {SpecialValue.Type.NAN,
        SpecialValue.Type.POSITIVE_INFINITY, SpecialValue.Type.NEGATIVE_INFINITY, SpecialValue.Type.ZERO_DATE};

    /** The codes of format 2 and later; never change or reuse one. */
    private static final EnumCodes<SpecialValue.Type> SPECIALS = EnumCodes.of(SpecialValue.Type.class,
            "special value", Map.of(SpecialValue.Type.NAN, 1, SpecialValue.Type.POSITIVE_INFINITY, 2,
                    SpecialValue.Type.NEGATIVE_INFINITY, 3, SpecialValue.Type.ZERO_DATE, 4));

    private KeyCodec() {}

    public static void write(DataOutputView out, List<ValueType> types, @Nullable Object[] key) throws IOException {
        out.writeBoolean(key != null);
        if (key == null) {
            return;
        }
        for (int i = 0; i < types.size(); i++) {
            writeValue(out, types.get(i).kind(), key[i]);
        }
    }

    /** Reads what {@link #write} wrote, in nested format {@code format} ({@link StateIO#FORMAT_1} or later). */
    @Nullable
    public static Object[] read(DataInputView in, List<ValueType> types, int format) throws IOException {
        if (!in.readBoolean()) {
            return null;
        }
        Object[] key = new Object[types.size()];
        for (int i = 0; i < key.length; i++) {
            key[i] = readValue(in, types.get(i).kind(), format);
        }
        return key;
    }

    private static void writeValue(DataOutputView out, ValueKind kind, Object v) throws IOException {
        if (v == null) {
            out.writeByte(NULL);
            return;
        }
        if (v instanceof SpecialValue) {
            SpecialValue special = (SpecialValue) v;
            out.writeByte(SPECIAL);
            SPECIALS.write(out, special.type());
            if (special.type() == SpecialValue.Type.ZERO_DATE) {
                StateIO.writeString(out, special.temporalText());
            }
            return;
        }
        out.writeByte(ORDINARY);
        switch (kind) {
            case INTEGER:
            case BIGINT:
                out.writeLong((Long) v);
                break;
            case UNSIGNED_BIGINT:
                writeBytes(out, ((BigInteger) v).toByteArray());
                break;
            case DECIMAL:
                out.writeUTF(((BigDecimal) v).toString());
                break;
            case UUID:
                out.writeLong(((UUID) v).getMostSignificantBits());
                out.writeLong(((UUID) v).getLeastSignificantBits());
                break;
            case BYTES:
                writeBytes(out, (byte[]) v);
                break;
            case DATE:
                out.writeLong(((LocalDate) v).toEpochDay());
                break;
            case TIMESTAMP: {
                LocalDateTime t = (LocalDateTime) v;
                out.writeLong(t.toLocalDate().toEpochDay());
                out.writeLong(t.toLocalTime().toNanoOfDay());
                break;
            }
            case TIMESTAMP_TZ:
                out.writeLong(((Instant) v).getEpochSecond());
                out.writeInt(((Instant) v).getNano());
                break;
            case TEXT: // split format 5 and later (keys of a collation the connector orders); valid Unicode
                StateIO.writeString(out, (String) v);
                break;
            default:
                throw new IOException("Chunk keys of kind " + kind + " are not written to state");
        }
    }

    private static Object readValue(DataInputView in, ValueKind kind, int format) throws IOException {
        byte tag = in.readByte();
        if (tag == NULL) {
            return null;
        }
        if (tag == SPECIAL) {
            SpecialValue.Type type = format == StateIO.FORMAT_1
                    ? StateIO.enumAt(FORMAT_1_SPECIALS, in.readByte(), "special value")
                    : SPECIALS.read(in);
            switch (type) {
                case NAN:
                    return SpecialValue.NAN;
                case POSITIVE_INFINITY:
                    return SpecialValue.POSITIVE_INFINITY;
                case NEGATIVE_INFINITY:
                    return SpecialValue.NEGATIVE_INFINITY;
                default:
                    if (format == StateIO.FORMAT_1) {
                        throw new IOException("A zero date in a chunk key of nested format 1, which wrote no zero dates");
                    }
                    return SpecialValue.zeroDate(StateIO.readString(in));
            }
        }
        if (tag != ORDINARY) {
            throw new IOException("Unknown chunk key value tag " + tag);
        }
        switch (kind) {
            case INTEGER:
            case BIGINT:
                return in.readLong();
            case UNSIGNED_BIGINT:
                return new BigInteger(readBytes(in));
            case DECIMAL:
                return new BigDecimal(in.readUTF());
            case UUID:
                return new UUID(in.readLong(), in.readLong());
            case BYTES:
                return readBytes(in);
            case DATE:
                return LocalDate.ofEpochDay(in.readLong());
            case TIMESTAMP:
                return LocalDate.ofEpochDay(in.readLong()).atStartOfDay().plusNanos(in.readLong());
            case TIMESTAMP_TZ:
                return Instant.ofEpochSecond(in.readLong(), in.readInt());
            case TEXT:
                return StateIO.readString(in);
            default:
                throw new IOException("Chunk keys of kind " + kind + " are not read from state");
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
