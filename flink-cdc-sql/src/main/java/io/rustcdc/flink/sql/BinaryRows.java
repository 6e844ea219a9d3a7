package io.rustcdc.flink.sql;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.data.writer.BinaryWriter;
import org.apache.flink.table.runtime.typeutils.InternalSerializers;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.types.RowKind;

/**
 * Writes rows of one row type as {@link BinaryRowData}: each row one block of bytes, which Flink copies
 * between chained operators (without object reuse) with one allocation instead of a copy of every field,
 * and serializes without converting. Values are Flink's internal data of the field's type (see
 * {@link FieldConverter}); a field never set is null. Not thread-safe: one per reader.
 */
final class BinaryRows {
    private static final int MAX_EXPECTED_SIZE = 1 << 16;

    private final LogicalType[] types;
    private final TypeSerializer<?>[] serializers;
    /** Whether each field is text (its value a {@link org.apache.flink.table.data.StringData} made from a String). */
    private final boolean[] text;
    private BinaryRowData row;
    private BinaryRowWriter writer;
    private final boolean[] set;
    /**
     * Bytes to give the next row's variable-length part: the last row's, or more after a longer row, falling back
     * by a sixteenth a row, at most 64 KiB; so that most rows are written without growing and emitted without a
     * copy, each in an array at most that much longer than its bytes.
     */
    private int expectedVariableSize = 64;

    BinaryRows(List<LogicalType> types) {
        this.types = types.toArray(new LogicalType[0]);
        this.serializers = new TypeSerializer<?>[this.types.length];
        this.text = new boolean[this.types.length];
        for (int i = 0; i < this.types.length; i++) {
            LogicalTypeRoot root = this.types[i].getTypeRoot();
            if (root == LogicalTypeRoot.ARRAY) {
                serializers[i] = InternalSerializers.create(this.types[i]);
            }
            text[i] = root == LogicalTypeRoot.VARCHAR || root == LogicalTypeRoot.CHAR;
        }
        this.set = new boolean[this.types.length];
    }

    /** Starts a row of {@code kind}, every field null until set. */
    void start(RowKind kind) {
        row = new BinaryRowData(types.length);
        writer = new BinaryRowWriter(row, expectedVariableSize);
        writer.reset();
        writer.writeRowKind(kind);
        Arrays.fill(set, false);
    }

    /** Sets field {@code pos} to {@code value}, an internal value of the field's type, or null. */
    void set(int pos, Object value) {
        if (value == null) {
            writer.setNullAt(pos);
        } else if (text[pos]) {
            // Flink's writer would encode the String char by char (through a thread-local buffer); the JDK's
            // encoder does it at once, and a string field is laid out as a binary one (BinaryRowsTest compares)
            writer.writeBinary(pos, value.toString().getBytes(StandardCharsets.UTF_8));
        } else {
            BinaryWriter.write(writer, pos, value, types[pos], serializers[pos]);
        }
        set[pos] = true;
    }

    /** The row written since {@link #start}, in bytes of its own. */
    BinaryRowData finish() {
        for (int i = 0; i < set.length; i++) {
            if (!set[i]) {
                writer.setNullAt(i);
            }
        }
        writer.complete();
        int variable = row.getSizeInBytes() - row.getFixedLengthPartSize();
        expectedVariableSize = Math.min(MAX_EXPECTED_SIZE,
                Math.max(variable, expectedVariableSize - (expectedVariableSize >> 4)));
        BinaryRowData written = row;
        row = null;
        writer = null;
        return written;
    }
}
