package io.rustcdc.flink.sql;

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
    private final BinaryRowData row;
    private final BinaryRowWriter writer;
    private final boolean[] set;

    BinaryRows(List<LogicalType> types) {
        this.types = types.toArray(new LogicalType[0]);
        this.serializers = new TypeSerializer<?>[this.types.length];
        for (int i = 0; i < this.types.length; i++) {
            if (this.types[i].getTypeRoot() == LogicalTypeRoot.ARRAY) {
                serializers[i] = InternalSerializers.create(this.types[i]);
            }
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
