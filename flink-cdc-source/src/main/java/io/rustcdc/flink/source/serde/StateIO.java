package io.rustcdc.flink.source.serde;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
    /** Value kinds written by their ordinals, which tied old bytes to the order of {@link ValueKind}. */
    public static final int FORMAT_1 = 1;
    /** Value kinds (and, in chunk keys, special values) written as explicit codes. */
    public static final int FORMAT_2 = 2;
    /** The version of the formats below; written by each serializer that uses them. */
    public static final int FORMAT_VERSION = FORMAT_2;

    /** The kinds in the order format 1 wrote their ordinals; frozen. */
    private static final ValueKind[] FORMAT_1_KINDS = {ValueKind.BOOLEAN, ValueKind.INTEGER, ValueKind.BIGINT,
        ValueKind.UNSIGNED_BIGINT, ValueKind.DECIMAL, ValueKind.FLOAT32, ValueKind.FLOAT64, ValueKind.TEXT,
        ValueKind.BYTES, ValueKind.BITS, ValueKind.DATE, ValueKind.TIME, ValueKind.TIMESTAMP, ValueKind.TIMESTAMP_TZ,
        ValueKind.UUID, ValueKind.ARRAY};

    /** The codes of format 2 and later; never change or reuse one. */
    private static final EnumCodes<ValueKind> KINDS = EnumCodes.of(ValueKind.class, "value kind", Map.ofEntries(
            Map.entry(ValueKind.BOOLEAN, 1), Map.entry(ValueKind.INTEGER, 2), Map.entry(ValueKind.BIGINT, 3),
            Map.entry(ValueKind.UNSIGNED_BIGINT, 4), Map.entry(ValueKind.DECIMAL, 5), Map.entry(ValueKind.FLOAT32, 6),
            Map.entry(ValueKind.FLOAT64, 7), Map.entry(ValueKind.TEXT, 8), Map.entry(ValueKind.BYTES, 9),
            Map.entry(ValueKind.BITS, 10), Map.entry(ValueKind.DATE, 11), Map.entry(ValueKind.TIME, 12),
            Map.entry(ValueKind.TIMESTAMP, 13), Map.entry(ValueKind.TIMESTAMP_TZ, 14), Map.entry(ValueKind.UUID, 15),
            Map.entry(ValueKind.ARRAY, 16)));

    private StateIO() {}

    /**
     * Writes {@code s} as UTF-8.
     *
     * @throws IOException when {@code s} holds a lone surrogate, which UTF-8 cannot carry (Java would
     *     write {@code ?} in its place)
     */
    public static void writeString(DataOutputView out, String s) throws IOException {
        requireWellFormed(s);
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(utf8.length);
        out.write(utf8);
    }

    private static void requireWellFormed(String s) throws IOException {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IOException("A text of " + s.length() + " characters holds a lone surrogate (U+"
                        + Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT) + ") at index " + i
                        + ", which UTF-8 cannot hold exactly; it is not written");
            }
        }
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

    /** An instant as its epoch second and nano of second. */
    public static void writeInstant(DataOutputView out, Instant instant) throws IOException {
        out.writeLong(instant.getEpochSecond());
        out.writeInt(instant.getNano());
    }

    public static Instant readInstant(DataInputView in) throws IOException {
        return Instant.ofEpochSecond(in.readLong(), in.readInt());
    }

    /** A flag, then the instant as {@link #writeInstant} writes it when there is one. */
    public static void writeNullableInstant(DataOutputView out, @Nullable Instant instant) throws IOException {
        out.writeBoolean(instant != null);
        if (instant != null) {
            writeInstant(out, instant);
        }
    }

    @Nullable
    public static Instant readNullableInstant(DataInputView in) throws IOException {
        return in.readBoolean() ? readInstant(in) : null;
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

    /** Writes {@code type} in the current format. */
    public static void writeValueType(DataOutputView out, ValueType type) throws IOException {
        KINDS.write(out, type.kind());
        out.writeInt(type.precision());
        if (type.kind() == ValueKind.ARRAY) {
            writeValueType(out, type.element());
        }
    }

    /** Reads what {@link #writeValueType} wrote in nested format {@code format}. */
    public static ValueType readValueType(DataInputView in, int format) throws IOException {
        ValueKind kind = format == FORMAT_1 ? enumAt(FORMAT_1_KINDS, in.readByte(), "value kind") : KINDS.read(in);
        int precision = in.readInt();
        switch (kind) {
            case ARRAY:
                return ValueType.arrayOf(readValueType(in, format));
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

    /**
     * The constant at {@code ordinal} of a frozen table of an old format (never an enum's {@code
     * values()}, whose order may change), failing on a value this release does not know.
     */
    public static <E extends Enum<E>> E enumAt(E[] values, int ordinal, String what) throws IOException {
        if (ordinal < 0 || ordinal >= values.length) {
            throw new IOException("Unknown " + what + " " + ordinal + "; this state was written by a newer release");
        }
        return values[ordinal];
    }

    /** {@code version}, the nested format read from {@code what}; fails when it is none this code reads. */
    public static int requireFormat(int version, String what) throws IOException {
        if (version != FORMAT_1 && version != FORMAT_2) {
            throw new IOException("Unknown nested format version " + version + " in " + what
                    + "; this state was written by a newer release");
        }
        return version;
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
