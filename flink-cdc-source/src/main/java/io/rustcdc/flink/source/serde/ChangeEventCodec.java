package io.rustcdc.flink.source.serde;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Format 1 of a {@link ChangeEvent}: op, table, before and after rows ({@link RowCodec}), shape, source
 * (connector, snapshot flag, position by its {@link PositionFormat}, commit time), transaction and the
 * classified shape changes. Stateless: what {@link #write} caches is the caller's.
 */
@Internal
final class ChangeEventCodec {
    /** Never change or reuse a code. */
    private static final EnumCodes<Op> OPS = EnumCodes.of(Op.class, "change event op", Map.of(Op.READ, 1,
            Op.INSERT, 2, Op.UPDATE, 3, Op.DELETE, 4, Op.TRUNCATE, 5, Op.MESSAGE, 6, Op.SCHEMA_CHANGE, 7));

    /** Never change or reuse a code. */
    private static final EnumCodes<ShapeChange.Kind> KINDS = EnumCodes.of(ShapeChange.Kind.class,
            "shape change kind", Map.ofEntries(Map.entry(ShapeChange.Kind.TABLE_CREATED, 1),
                    Map.entry(ShapeChange.Kind.TABLE_DROPPED, 2), Map.entry(ShapeChange.Kind.TABLE_REPLACED, 3),
                    Map.entry(ShapeChange.Kind.COLUMN_ADDED, 4), Map.entry(ShapeChange.Kind.COLUMN_REMOVED, 5),
                    Map.entry(ShapeChange.Kind.COLUMN_RENAMED, 6), Map.entry(ShapeChange.Kind.COLUMN_TYPE_CHANGED, 7),
                    Map.entry(ShapeChange.Kind.COLUMN_NULLABILITY_CHANGED, 8),
                    Map.entry(ShapeChange.Kind.PRIMARY_KEY_CHANGED, 9), Map.entry(ShapeChange.Kind.UNKNOWN, 10),
                    Map.entry(ShapeChange.Kind.UNCHANGED, 11)));

    private ChangeEventCodec() {}

    /** Writes {@code e}; its table id, row types and shape from {@code cache}, in the same bytes. */
    static void write(DataOutputView out, ChangeEvent e, PositionFormat positions, EncodingCache cache)
            throws IOException {
        OPS.write(out, e.op());
        cache.write(out, e.table(), StateIO::writeTableId);
        RowCodec.writeNullable(out, e.before(), cache);
        RowCodec.writeNullable(out, e.after(), cache);
        RowShape shape = e.shape();
        if (shape == null) {
            out.writeBoolean(false); // as StateIO.writeNullableShape writes none
        } else {
            cache.write(out, shape, StateIO::writeNullableShape);
        }
        writeSource(out, e.source(), positions);
        writeTransaction(out, e.transaction());
        out.writeInt(e.shapeChanges().size());
        for (ShapeChange c : e.shapeChanges()) {
            writeShapeChange(out, c);
        }
    }

    static ChangeEvent read(DataInputView in, PositionFormat positions) throws IOException {
        Op op = OPS.read(in);
        TableId table = StateIO.readTableId(in);
        Row before = RowCodec.readNullable(in);
        Row after = RowCodec.readNullable(in);
        RowShape shape = StateIO.readNullableShape(in);
        SourceInfo source = readSource(in, positions);
        TransactionInfo transaction = readTransaction(in);
        int n = StateIO.readCount(in);
        List<ShapeChange> changes = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) {
            changes.add(readShapeChange(in));
        }
        return ChangeEvent.builder(op, table, source).before(before).after(after).shape(shape)
                .transaction(transaction).shapeChanges(changes).build();
    }

    private static void writeSource(DataOutputView out, SourceInfo source, PositionFormat positions)
            throws IOException {
        StateIO.writeString(out, source.connector());
        out.writeBoolean(source.snapshot());
        positions.write(out, source.position());
        Instant commit = source.commitTime();
        StateIO.writeNullableInstant(out, commit);
    }

    private static SourceInfo readSource(DataInputView in, PositionFormat positions) throws IOException {
        String connector = StateIO.readString(in);
        boolean snapshot = in.readBoolean();
        SourcePosition position = positions.read(in);
        Instant commit = StateIO.readNullableInstant(in);
        if (snapshot) {
            if (commit != null) {
                throw new IOException("A snapshot event with a commit time: the bytes are damaged");
            }
            return SourceInfo.snapshot(connector, position);
        }
        if (position == null) {
            throw new IOException("A stream event without a position: the bytes are damaged");
        }
        return SourceInfo.stream(connector, position, commit);
    }

    private static void writeTransaction(DataOutputView out, @Nullable TransactionInfo tx) throws IOException {
        out.writeBoolean(tx != null);
        if (tx != null) {
            StateIO.writeString(out, tx.id());
            out.writeLong(tx.index());
            out.writeLong(tx.total());
        }
    }

    @Nullable
    private static TransactionInfo readTransaction(DataInputView in) throws IOException {
        return in.readBoolean() ? TransactionInfo.of(StateIO.readString(in), in.readLong(), in.readLong()) : null;
    }

    private static void writeShapeChange(DataOutputView out, ShapeChange c) throws IOException {
        KINDS.write(out, c.kind());
        writeColumns(out, c.before());
        writeColumns(out, c.after());
        out.writeInt(c.position());
        writeStrings(out, c.keyBefore());
        writeStrings(out, c.keyAfter());
        StateIO.writeString(out, c.reason());
    }

    private static ShapeChange readShapeChange(DataInputView in) throws IOException {
        return ShapeChange.of(KINDS.read(in), readColumns(in), readColumns(in), in.readInt(), readStrings(in),
                readStrings(in), StateIO.readString(in));
    }

    private static void writeColumns(DataOutputView out, List<RowShape.Column> columns) throws IOException {
        out.writeInt(columns.size());
        for (RowShape.Column c : columns) {
            StateIO.writeColumn(out, c);
        }
    }

    private static List<RowShape.Column> readColumns(DataInputView in) throws IOException {
        int n = StateIO.readCount(in);
        List<RowShape.Column> columns = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) {
            columns.add(StateIO.readColumn(in));
        }
        return columns;
    }

    private static void writeStrings(DataOutputView out, List<String> strings) throws IOException {
        out.writeInt(strings.size());
        for (String s : strings) {
            StateIO.writeString(out, s);
        }
    }

    private static List<String> readStrings(DataInputView in) throws IOException {
        int n = StateIO.readCount(in);
        List<String> strings = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) {
            strings.add(StateIO.readString(in));
        }
        return strings;
    }
}
