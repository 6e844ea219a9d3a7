package io.rustcdc.flink.source.serde;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The building blocks of every state format: strings of any length (as a byte count and UTF-8,
 * where {@code writeUTF} stops at 64 KiB), nullable values, table ids and row shapes.
 *
 * <p>Formats of nested values are versioned by the enclosing serializer, which writes {@link
 * #FORMAT_VERSION} of these blocks into its bytes.
 */
@Internal
public final class StateIO {
    /** The version of the formats below; written by each serializer that uses them. */
    public static final int FORMAT_VERSION = 1;

    private StateIO() {}

    public static void writeString(DataOutputView out, String s) throws IOException {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(utf8.length);
        out.write(utf8);
    }

    public static String readString(DataInputView in) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            throw new IOException("Negative string length " + length);
        }
        byte[] utf8 = new byte[length];
        in.readFully(utf8);
        return new String(utf8, StandardCharsets.UTF_8);
    }

    public static void writeNullableString(DataOutputView out, @Nullable String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) {
            writeString(out, s);
        }
    }

    @Nullable
    public static String readNullableString(DataInputView in) throws IOException {
        return in.readBoolean() ? readString(in) : null;
    }

    public static void writeTableId(DataOutputView out, TableId id) throws IOException {
        writeString(out, id.database());
        writeNullableString(out, id.schema());
        writeString(out, id.table());
    }

    public static TableId readTableId(DataInputView in) throws IOException {
        return TableId.of(readString(in), readNullableString(in), readString(in));
    }

    public static void writeNullableShape(DataOutputView out, @Nullable RowShape shape) throws IOException {
        out.writeBoolean(shape != null);
        if (shape == null) {
            return;
        }
        writeString(out, shape.schema());
        writeString(out, shape.table());
        out.writeInt(shape.columns().size());
        for (RowShape.Column c : shape.columns()) {
            writeColumn(out, c);
        }
        out.writeInt(shape.primaryKey().size());
        for (String k : shape.primaryKey()) {
            writeString(out, k);
        }
    }

    @Nullable
    public static RowShape readNullableShape(DataInputView in) throws IOException {
        if (!in.readBoolean()) {
            return null;
        }
        String schema = readString(in);
        String table = readString(in);
        int columnCount = readCount(in);
        List<RowShape.Column> columns = new ArrayList<>(columnCount);
        for (int i = 0; i < columnCount; i++) {
            columns.add(readColumn(in));
        }
        int keyCount = readCount(in);
        List<String> key = new ArrayList<>(keyCount);
        for (int i = 0; i < keyCount; i++) {
            key.add(readString(in));
        }
        return RowShape.of(schema, table, columns, key);
    }

    public static void writeColumn(DataOutputView out, RowShape.Column c) throws IOException {
        writeString(out, c.name());
        writeString(out, c.dataType());
        out.writeBoolean(c.nullable());
    }

    public static RowShape.Column readColumn(DataInputView in) throws IOException {
        return RowShape.Column.of(readString(in), readString(in), in.readBoolean());
    }

    public static void writeValueType(DataOutputView out, ValueType type) throws IOException {
        out.writeByte(type.kind().ordinal());
        out.writeInt(type.precision());
        if (type.kind() == ValueKind.ARRAY) {
            writeValueType(out, type.element());
        }
    }

    public static ValueType readValueType(DataInputView in) throws IOException {
        ValueKind kind = enumAt(ValueKind.values(), in.readByte(), "value kind");
        int precision = in.readInt();
        switch (kind) {
            case ARRAY:
                return ValueType.arrayOf(readValueType(in));
            case TIME:
            case TIMESTAMP:
            case TIMESTAMP_TZ:
                return ValueType.temporal(kind, precision);
            default:
                return ValueType.of(kind);
        }
    }

    /** Writes {@code value} with {@code serializer}, its version and length first. */
    public static <T> void writeVersioned(DataOutputView out, SimpleVersionedSerializer<T> serializer, T value)
            throws IOException {
        byte[] bytes = serializer.serialize(value);
        out.writeInt(serializer.getVersion());
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    /** Reads what {@link #writeVersioned} wrote. */
    public static <T> T readVersioned(DataInputView in, SimpleVersionedSerializer<T> serializer) throws IOException {
        int version = in.readInt();
        byte[] bytes = new byte[readCount(in)];
        in.readFully(bytes);
        return serializer.deserialize(version, bytes);
    }

    /** A non-negative count. */
    public static int readCount(DataInputView in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("Negative count " + n);
        }
        return n;
    }

    /** The constant at {@code ordinal}, failing on a value this release does not know. */
    public static <E extends Enum<E>> E enumAt(E[] values, int ordinal, String what) throws IOException {
        if (ordinal < 0 || ordinal >= values.length) {
            throw new IOException("Unknown " + what + " " + ordinal + "; this state was written by a newer release");
        }
        return values[ordinal];
    }

    /** Fails when {@code version} is not one of the formats this code reads. */
    public static void requireFormat(int version, String what) throws IOException {
        if (version != FORMAT_VERSION) {
            throw new IOException("Unknown nested format version " + version + " in " + what
                    + "; this state was written by a newer release");
        }
    }

    /** Fails when the serialized form had bytes after the value: a sign of a format mix-up. */
    public static void requireFullyRead(DataInputDeserializer in, String what) throws IOException {
        if (in.available() > 0) {
            throw new IOException(in.available() + " unread bytes after " + what);
        }
    }

    /** The error for a serializer version this code does not know. */
    public static CdcException unknownVersion(String what, int version, int current) {
        return new CdcException(CdcException.Kind.STATE, "Cannot read " + what + " of serializer version " + version
                + " (this release reads up to " + current + "): restore with the release that wrote it or a newer one");
    }
}
