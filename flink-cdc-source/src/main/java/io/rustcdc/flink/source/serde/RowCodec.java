package io.rustcdc.flink.source.serde;

import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.ValueType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Writes a {@link Row} exactly: its {@link RowType} (names, and value types in nested format {@link
 * StateIO#FORMAT_2}), then each field as a value of {@link ValueCodec} or as absent (a field the source
 * did not supply, which is not null).
 */
@Internal
final class RowCodec {
    /** A field the source did not supply; distinct from every tag of {@link ValueCodec}. */
    static final byte ABSENT = 5;

    private RowCodec() {}

    /** Writes {@code row}, its type from {@code cache}. */
    static void writeNullable(DataOutputView out, @Nullable Row row, EncodingCache cache) throws IOException {
        out.writeBoolean(row != null);
        if (row == null) {
            return;
        }
        RowType type = row.type();
        cache.write(out, type, RowCodec::writeType);
        for (int i = 0; i < type.size(); i++) {
            if (row.isPresent(i)) {
                ValueCodec.write(out, type.type(i), row.get(i));
            } else {
                out.writeByte(ABSENT);
            }
        }
    }

    @Nullable
    static Row readNullable(DataInputView in) throws IOException {
        if (!in.readBoolean()) {
            return null;
        }
        RowType type = readType(in);
        Row.Builder row = Row.builder(type);
        for (int i = 0; i < type.size(); i++) {
            byte tag = in.readByte();
            if (tag != ABSENT) {
                row.set(i, ValueCodec.read(in, tag, type.type(i)));
            }
        }
        return row.build();
    }

    private static void writeType(DataOutputView out, RowType type) throws IOException {
        out.writeInt(type.size());
        for (int i = 0; i < type.size(); i++) {
            StateIO.writeString(out, type.name(i));
            StateIO.writeValueType(out, type.type(i));
        }
    }

    private static RowType readType(DataInputView in) throws IOException {
        int n = StateIO.readCount(in);
        List<String> names = new ArrayList<>(Math.min(n, 1024));
        List<ValueType> types = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) {
            names.add(StateIO.readString(in));
            types.add(StateIO.readValueType(in, StateIO.FORMAT_2));
        }
        return RowType.of(names, types);
    }
}
