package io.rustcdc.flink.source.history;

import static io.rustcdc.flink.source.serde.StateIO.readCount;
import static io.rustcdc.flink.source.serde.StateIO.readNullableShape;
import static io.rustcdc.flink.source.serde.StateIO.readNullableString;
import static io.rustcdc.flink.source.serde.StateIO.readString;
import static io.rustcdc.flink.source.serde.StateIO.readTableId;
import static io.rustcdc.flink.source.serde.StateIO.writeNullableShape;
import static io.rustcdc.flink.source.serde.StateIO.writeNullableString;
import static io.rustcdc.flink.source.serde.StateIO.writeString;
import static io.rustcdc.flink.source.serde.StateIO.writeTableId;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.serde.EnumCodes;
import io.rustcdc.flink.source.serde.StateIO;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/** Writes a {@link SchemaHistory} into Flink state and reads every version ever written. */
@Internal
public final class SchemaHistorySerializer implements SimpleVersionedSerializer<SchemaHistory> {
    public static final SchemaHistorySerializer INSTANCE = new SchemaHistorySerializer();

    /** Retention, last version, nested format, then every entry with the shape it leaves. */
    static final int VERSION_1 = 1;
    /** Version 1 with entry kinds and column change types as explicit codes (version 1: ordinals). */
    static final int VERSION_2 = 2;
    static final int CURRENT_VERSION = VERSION_2;

    /** The kinds and column change types in the order version 1 wrote their ordinals; frozen. */
    private static final SchemaChange.Kind[] VERSION_1_KINDS = {SchemaChange.Kind.CREATE_TABLE,
        SchemaChange.Kind.ALTER_TABLE, SchemaChange.Kind.DROP_TABLE, SchemaChange.Kind.ROW_SHAPE};
    private static final ColumnChange.Type[] VERSION_1_CHANGE_TYPES = {ColumnChange.Type.ADD, ColumnChange.Type.DROP,
        ColumnChange.Type.MODIFY, ColumnChange.Type.RENAME};

    /** The codes of version 2 and later; never change or reuse one. */
    private static final EnumCodes<SchemaChange.Kind> KINDS = EnumCodes.of(SchemaChange.Kind.class,
            "schema change kind", Map.of(SchemaChange.Kind.CREATE_TABLE, 1, SchemaChange.Kind.ALTER_TABLE, 2,
                    SchemaChange.Kind.DROP_TABLE, 3, SchemaChange.Kind.ROW_SHAPE, 4));
    private static final EnumCodes<ColumnChange.Type> CHANGE_TYPES = EnumCodes.of(ColumnChange.Type.class,
            "column change type", Map.of(ColumnChange.Type.ADD, 1, ColumnChange.Type.DROP, 2,
                    ColumnChange.Type.MODIFY, 3, ColumnChange.Type.RENAME, 4));

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(SchemaHistory history) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        write(out, history);
        return out.getCopyOfBuffer();
    }

    /** Writes {@code history} inside an enclosing format (the stream split's). */
    public void write(DataOutputView out, SchemaHistory history) throws IOException {
        out.writeInt(history.retention());
        out.writeLong(history.latestVersion());
        out.writeInt(StateIO.FORMAT_VERSION);
        List<SchemaHistory.Entry> entries = history.entries();
        out.writeInt(entries.size());
        for (SchemaHistory.Entry e : entries) {
            out.writeLong(e.version());
            writeString(out, e.ddlId());
            writeChange(out, e.change());
            writeNullableShape(out, e.shape());
        }
    }

    @Override
    public SchemaHistory deserialize(int version, byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        SchemaHistory history = read(version, in);
        StateIO.requireFullyRead(in, "the schema history");
        return history;
    }

    /** Reads a history written by {@link #write} with serializer version {@code version}. */
    public SchemaHistory read(int version, DataInputView in) throws IOException {
        switch (version) {
            case VERSION_1:
            case VERSION_2:
                return readVersion(version, in);
            default:
                throw StateIO.unknownVersion("the schema history", version, CURRENT_VERSION);
        }
    }

    private static SchemaHistory readVersion(int serializerVersion, DataInputView in) throws IOException {
        SchemaHistory history = new SchemaHistory(in.readInt());
        long lastVersion = in.readLong();
        StateIO.requireFormat(in.readInt(), "the schema history");
        int count = readCount(in);
        for (int i = 0; i < count; i++) {
            long version = in.readLong();
            String ddlId = readString(in);
            SchemaChange change = readChange(in, serializerVersion);
            RowShape shape = readNullableShape(in);
            history.restore(new SchemaHistory.Entry(version, ddlId, change, shape));
        }
        history.restoreLastVersion(lastVersion);
        return history;
    }

    private static void writeChange(DataOutputView out, SchemaChange change) throws IOException {
        KINDS.write(out, change.kind());
        writeTableId(out, change.table());
        writeNullableString(out, change.statement());
        writeNullableShape(out, change.resultShape());
        out.writeInt(change.diff().size());
        for (ColumnChange c : change.diff()) {
            CHANGE_TYPES.write(out, c.type());
            writeString(out, c.name());
            out.writeBoolean(c.column() != null);
            if (c.column() != null) {
                StateIO.writeColumn(out, c.column());
            }
            writeNullableString(out, c.newName());
            out.writeInt(c.position());
        }
        StateIO.writeInstant(out, change.timestamp());
    }

    private static SchemaChange readChange(DataInputView in, int version) throws IOException {
        SchemaChange.Kind kind = version == VERSION_1
                ? StateIO.enumAt(VERSION_1_KINDS, in.readByte(), "schema change kind")
                : KINDS.read(in);
        TableId table = readTableId(in);
        String statement = readNullableString(in);
        RowShape shape = readNullableShape(in);
        int diffCount = readCount(in);
        List<ColumnChange> diff = new ArrayList<>(diffCount);
        for (int i = 0; i < diffCount; i++) {
            ColumnChange.Type type = version == VERSION_1
                    ? StateIO.enumAt(VERSION_1_CHANGE_TYPES, in.readByte(), "column change type")
                    : CHANGE_TYPES.read(in);
            String name = readString(in);
            RowShape.Column column = in.readBoolean() ? StateIO.readColumn(in) : null;
            String newName = readNullableString(in);
            int position = in.readInt();
            diff.add(columnChange(type, name, column, newName, position));
        }
        Instant timestamp = StateIO.readInstant(in);
        return SchemaChange.restore(kind, table, statement, shape, diff, timestamp);
    }

    private static ColumnChange columnChange(ColumnChange.Type type, String name, RowShape.Column column,
            String newName, int position) throws IOException {
        switch (type) {
            case ADD:
                return ColumnChange.add(column, position);
            case DROP:
                return ColumnChange.drop(name);
            case MODIFY:
                return ColumnChange.modify(column);
            case RENAME:
                return ColumnChange.rename(name, newName);
            default:
                throw new IOException("Unknown column change " + type);
        }
    }
}
