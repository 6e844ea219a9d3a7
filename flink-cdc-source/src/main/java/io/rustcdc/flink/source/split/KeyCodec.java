package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.serde.StateIO;
import io.rustcdc.flink.source.serde.ValueCodec;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.List;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Writes chunk boundary keys into state, by their columns' value types: the kinds a connector's key
 * order may order, plus special values (infinities, NaN, and since nested format 2 MySQL zero dates
 * with their text; text as UTF-8, written only by split format 5 and later). A tag byte precedes
 * each value; a special value's type is an explicit code since format 2 (format 1 wrote its
 * ordinal). Special values, and values of the kinds but decimal and text, are written as {@link
 * ValueCodec} writes them.
 */
@Internal
public final class KeyCodec {
    private static final byte NULL = 0;
    private static final byte ORDINARY = 1;
    private static final byte SPECIAL = 2;

    /** The special value types in the order format 1 wrote their ordinals; frozen. */
    private static final SpecialValue.Type[] FORMAT_1_SPECIALS = {SpecialValue.Type.NAN,
        SpecialValue.Type.POSITIVE_INFINITY, SpecialValue.Type.NEGATIVE_INFINITY, SpecialValue.Type.ZERO_DATE};

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
            out.writeByte(SPECIAL);
            ValueCodec.writeSpecial(out, (SpecialValue) v);
            return;
        }
        out.writeByte(ORDINARY);
        switch (kind) {
            case INTEGER:
            case BIGINT:
            case UNSIGNED_BIGINT:
            case UUID:
            case BYTES:
            case DATE:
            case TIMESTAMP:
            case TIMESTAMP_TZ:
                ValueCodec.writeOrdinary(out, kind, v);
                break;
            case DECIMAL:
                out.writeUTF(((BigDecimal) v).toString());
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
                    : ValueCodec.SPECIALS.read(in);
            if (format == StateIO.FORMAT_1 && type == SpecialValue.Type.ZERO_DATE) {
                throw new IOException("A zero date in a chunk key of nested format 1, which wrote no zero dates");
            }
            return ValueCodec.readSpecial(in, type);
        }
        if (tag != ORDINARY) {
            throw new IOException("Unknown chunk key value tag " + tag);
        }
        switch (kind) {
            case INTEGER:
            case BIGINT:
            case UNSIGNED_BIGINT:
            case UUID:
            case BYTES:
            case DATE:
            case TIMESTAMP:
            case TIMESTAMP_TZ:
                return ValueCodec.readOrdinary(in, kind);
            case DECIMAL:
                return new BigDecimal(in.readUTF());
            case TEXT:
                return StateIO.readString(in);
            default:
                throw new IOException("Chunk keys of kind " + kind + " are not read from state");
        }
    }
}
