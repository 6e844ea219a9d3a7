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
    private final LogicalType[] types;
    private final TypeSerializer<?>[] serializers;
    /** Whether each field is text (its value a {@link org.apache.flink.table.data.StringData} made from a String). */
    private final boolean[] text;
    private final BinaryRowData row;
    private final BinaryRowWriter writer;
    private final boolean[] set;

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
        this.row = new BinaryRowData(this.types.length);
        this.writer = new BinaryRowWriter(row);
        this.set = new boolean[this.types.length];
    }

    /** Starts a row of {@code kind}, every field null until set. */
    void start(RowKind kind) {
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
        return row.copy();
    }
}
