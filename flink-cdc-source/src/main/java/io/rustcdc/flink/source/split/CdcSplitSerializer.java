package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.history.SchemaHistorySerializer;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.serde.StateIO;
import io.rustcdc.flink.source.spi.EmittedShapes;
import io.rustcdc.flink.source.spi.KeyOrder;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The state format of {@link CdcSplit}s. Positions and marks are written by the connector's own
 * serializers, with their versions; the schema history by {@link SchemaHistorySerializer}, with its
 * version. Chunk keys read back are ordered by the connector's {@link KeyOrder}, which is code, not
 * state.
 */
@Internal
public final class CdcSplitSerializer<P, M> implements SimpleVersionedSerializer<CdcSplit> {
    /** A type byte, the nested format version, then a chunk or the stream. */
    static final int VERSION_1 = 1;
    /** Version 1, and the stream's plans of tables added after it started. */
    static final int VERSION_2 = 2;
    /** Version 2, and whether each chunk is redelivered (at-least-once sinks). */
    static final int VERSION_3 = 3;
    /**
     * Version 3 in nested format {@link StateIO#FORMAT_2}: value kinds and special values of chunk
     * keys as explicit codes (versions 1 to 3 wrote ordinals, in format 1), zero dates in keys, and
     * whether a chunk key is nullable (which keeps its table in one chunk).
     */
    static final int VERSION_4 = 4;
    /** Version 4, and the collation of each chunk key column (null where none), which its key order reads. */
    static final int VERSION_5 = 5;
    /**
     * Version 5, and the stream's {@link io.rustcdc.flink.source.spi.EmittedShapes}: per table, the
     * shape its last classified schema change left and the shape its rows carried since (each nullable).
     */
    static final int VERSION_6 = 6;
    /**
     * Version 6, and the stream's {@link OpenTransaction}: the transaction begun and not ended at the
     * position, for its end marker (a flag, then its id, connector, commit time and events per table).
     */
    static final int VERSION_7 = 7;
    /** Version 7, and the row filter (nullable) of each chunk and of each plan. */
    static final int VERSION_8 = 8;
    static final int CURRENT_VERSION = VERSION_8;

    private static final byte CHUNK = 0;
    private static final byte STREAM = 1;

    private final SimpleVersionedSerializer<P> positions;
    private final SimpleVersionedSerializer<M> marks;
    private final KeyOrder keyOrder;

    public CdcSplitSerializer(SimpleVersionedSerializer<P> positions, SimpleVersionedSerializer<M> marks,
            KeyOrder keyOrder) {
        this.positions = positions;
        this.marks = marks;
        this.keyOrder = keyOrder;
    }

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    @SuppressWarnings("unchecked")
    public byte[] serialize(CdcSplit split) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeByte(split instanceof StreamSplit<?, ?> ? STREAM : CHUNK);
        out.writeInt(StateIO.FORMAT_VERSION);
        // the type arguments are the serializer's: a split of this source carries its connector's P and M
        if (split instanceof StreamSplit<?, ?> stream) {
            writeStream(out, (StreamSplit<P, M>) stream);
        } else if (split instanceof ChunkSplit<?> chunk) {
            writeChunk(out, (ChunkSplit<M>) chunk);
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public CdcSplit deserialize(int version, byte[] serialized) throws IOException {
        switch (version) {
            case VERSION_1:
            case VERSION_2:
            case VERSION_3:
            case VERSION_4:
            case VERSION_5:
            case VERSION_6:
            case VERSION_7:
            case VERSION_8:
                return deserializeVersion(version, serialized);
            default:
                throw StateIO.unknownVersion("a split", version, CURRENT_VERSION);
        }
    }

    private CdcSplit deserializeVersion(int version, byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        byte type = in.readByte();
        int format = StateIO.requireFormat(in.readInt(), "a split");
        CdcSplit split;
        if (type == STREAM) {
            split = readStream(in, version, format);
        } else if (type == CHUNK) {
            split = readChunk(in, version, format);
        } else {
            throw new IOException("Unknown split type " + type);
        }
        StateIO.requireFullyRead(in, "a split");
        return split;
    }

    /** Writes a chunk inside an enclosing format (the enumerator's). */
    public void writeChunk(DataOutputView out, ChunkSplit<M> chunk) throws IOException {
        StateIO.writeTableId(out, chunk.table());
        ChunkKey key = chunk.key();
        writeKey(out, key);
        out.writeInt(chunk.index());
        KeyCodec.write(out, key.types(), chunk.after());
        KeyCodec.write(out, key.types(), chunk.upTo());
        out.writeBoolean(chunk.mark() != null);
        if (chunk.mark() != null) {
            StateIO.writeVersioned(out, marks, chunk.mark());
        }
        out.writeBoolean(chunk.isRedelivered());
        writeNullableString(out, chunk.rowFilter());
    }

    /** Reads what {@link #writeChunk} wrote, in the split format {@code version} and nested {@code format}. */
    public ChunkSplit<M> readChunk(DataInputView in, int version, int format) throws IOException {
        TableId table = StateIO.readTableId(in);
        ChunkKey key = readKey(in, version, format);
        int index = in.readInt();
        Object[] after = KeyCodec.read(in, key.types(), format);
        Object[] upTo = KeyCodec.read(in, key.types(), format);
        M mark = in.readBoolean() ? StateIO.readVersioned(in, marks) : null;
        boolean redelivered = version >= VERSION_3 && in.readBoolean();
        String rowFilter = version >= VERSION_8 ? readNullableString(in) : null;
        return ChunkSplit.restore(table, key, index, after, upTo, mark, redelivered, rowFilter);
    }

    private void writeStream(DataOutputView out, StreamSplit<P, M> split) throws IOException {
        StateIO.writeVersioned(out, positions, split.position());
        out.writeInt(split.handoff().size());
        for (ChunkSplit<M> chunk : split.handoff()) {
            writeChunk(out, chunk);
        }
        out.writeInt(split.tables().size());
        for (TableId t : split.tables()) {
            StateIO.writeTableId(out, t);
        }
        out.writeInt(SchemaHistorySerializer.INSTANCE.getVersion());
        SchemaHistorySerializer.INSTANCE.write(out, split.history());
        out.writeInt(split.adding().size());
        for (TablePlan plan : split.adding()) {
            writePlan(out, plan);
        }
        EmittedShapes shapes = split.shapes();
        List<TableId> shaped = new ArrayList<>(shapes.tables());
        out.writeInt(shaped.size());
        for (TableId t : shaped) {
            StateIO.writeTableId(out, t);
            StateIO.writeNullableShape(out, shapes.leftByChange(t));
            StateIO.writeNullableShape(out, shapes.rows(t));
        }
        writeOpenTransaction(out, split.openTransaction());
    }

    private static void writeOpenTransaction(DataOutputView out, @Nullable OpenTransaction open) throws IOException {
        out.writeBoolean(open != null);
        if (open == null) {
            return;
        }
        StateIO.writeString(out, open.id());
        StateIO.writeString(out, open.connector());
        StateIO.writeNullableInstant(out, open.commitTime());
        out.writeInt(open.eventsPerTable().size());
        for (Map.Entry<TableId, Long> e : open.eventsPerTable().entrySet()) {
            StateIO.writeTableId(out, e.getKey());
            out.writeLong(e.getValue());
        }
    }

    @Nullable
    private static OpenTransaction readOpenTransaction(DataInputView in) throws IOException {
        if (!in.readBoolean()) {
            return null;
        }
        String id = StateIO.readString(in);
        String connector = StateIO.readString(in);
        Instant commitTime = StateIO.readNullableInstant(in);
        int tables = StateIO.readCount(in);
        Map<TableId, Long> events = new HashMap<>();
        for (int i = 0; i < tables; i++) {
            events.put(StateIO.readTableId(in), in.readLong());
        }
        return new OpenTransaction(id, connector, commitTime, events);
    }

    /** Writes a table's chunk plan inside an enclosing format. */
    public void writePlan(DataOutputView out, TablePlan plan) throws IOException {
        StateIO.writeTableId(out, plan.table());
        writeKey(out, plan.key());
        out.writeInt(plan.nextIndex());
        KeyCodec.write(out, plan.key().types(), plan.nextAfter());
        writeNullableString(out, plan.rowFilter());
    }

    /** Reads what {@link #writePlan} wrote, in the split format {@code version} and nested {@code format}. */
    public TablePlan readPlan(DataInputView in, int version, int format) throws IOException {
        TableId table = StateIO.readTableId(in);
        ChunkKey key = readKey(in, version, format);
        int index = in.readInt();
        Object[] nextAfter = KeyCodec.read(in, key.types(), format);
        return new TablePlan(table, key, index, nextAfter, version >= VERSION_8 ? readNullableString(in) : null);
    }

    private static void writeNullableString(DataOutputView out, String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) {
            StateIO.writeString(out, s);
        }
    }

    private static String readNullableString(DataInputView in) throws IOException {
        return in.readBoolean() ? StateIO.readString(in) : null;
    }

    private static void writeKey(DataOutputView out, ChunkKey key) throws IOException {
        out.writeInt(key.columns().size());
        for (int i = 0; i < key.columns().size(); i++) {
            StateIO.writeString(out, key.columns().get(i));
            StateIO.writeValueType(out, key.types().get(i));
        }
        out.writeBoolean(key.nullable());
        for (String collation : key.collations()) {
            out.writeBoolean(collation != null);
            if (collation != null) {
                StateIO.writeString(out, collation);
            }
        }
    }

    private ChunkKey readKey(DataInputView in, int version, int format) throws IOException {
        int columns = StateIO.readCount(in);
        List<String> names = new ArrayList<>(columns);
        List<ValueType> types = new ArrayList<>(columns);
        for (int i = 0; i < columns; i++) {
            names.add(StateIO.readString(in));
            types.add(StateIO.readValueType(in, format));
        }
        if (format == StateIO.FORMAT_1) {
            return ChunkKey.restored(names, types, keyOrder);
        }
        boolean nullable = in.readBoolean();
        if (version < VERSION_5) {
            return ChunkKey.restored(names, types, keyOrder, nullable);
        }
        List<String> collations = new ArrayList<>(columns);
        for (int i = 0; i < columns; i++) {
            collations.add(in.readBoolean() ? StateIO.readString(in) : null);
        }
        return ChunkKey.restored(names, types, collations, keyOrder, nullable);
    }

    private StreamSplit<P, M> readStream(DataInputView in, int version, int format) throws IOException {
        P position = StateIO.readVersioned(in, positions);
        int chunks = StateIO.readCount(in);
        List<ChunkSplit<M>> handoff = new ArrayList<>(chunks);
        for (int i = 0; i < chunks; i++) {
            handoff.add(readChunk(in, version, format));
        }
        int tableCount = StateIO.readCount(in);
        Set<TableId> tables = new HashSet<>();
        for (int i = 0; i < tableCount; i++) {
            tables.add(StateIO.readTableId(in));
        }
        int historyVersion = in.readInt();
        SchemaHistory history = SchemaHistorySerializer.INSTANCE.read(historyVersion, in);
        List<TablePlan> adding = new ArrayList<>();
        if (version >= VERSION_2) {
            int plans = StateIO.readCount(in);
            for (int i = 0; i < plans; i++) {
                adding.add(readPlan(in, version, format));
            }
        }
        EmittedShapes shapes = new EmittedShapes();
        if (version >= VERSION_6) {
            int shaped = StateIO.readCount(in);
            for (int i = 0; i < shaped; i++) {
                shapes.restore(StateIO.readTableId(in), StateIO.readNullableShape(in), StateIO.readNullableShape(in));
            }
        }
        OpenTransaction open = version >= VERSION_7 ? readOpenTransaction(in) : null;
        return StreamSplit.of(position, handoff, tables, history, adding, shapes).withOpenTransaction(open);
    }
}
