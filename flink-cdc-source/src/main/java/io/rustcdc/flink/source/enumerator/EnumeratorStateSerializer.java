package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.split.TablePlan;
import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.history.SchemaHistorySerializer;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.serde.EnumCodes;
import io.rustcdc.flink.source.serde.StateIO;
import io.rustcdc.flink.source.spi.KeyOrder;
import io.rustcdc.flink.source.split.CdcSplitSerializer;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/** The state format of {@link EnumeratorState}; splits inside it use {@link CdcSplitSerializer}, with its version. */
@Internal
public final class EnumeratorStateSerializer<P, M> implements SimpleVersionedSerializer<EnumeratorState<P, M>> {
    /** Nested versions, flags, stream start, history, tables, plans, then four lists of chunks and the stream. */
    static final int VERSION_1 = 1;
    /** Version 1 in nested format {@link StateIO#FORMAT_2}, the stream status as an explicit code (version 1: ordinal). */
    static final int VERSION_2 = 2;
    /**
     * Version 2, then the snapshot control: paused, stopped, the plans of tables requested again, the
     * tables the stream's reader snapshots, and the ids of answered control requests.
     */
    static final int VERSION_3 = 3;
    /** Version 3, then the row filter of each table's last snapshot started (empty: none), for the readout. */
    static final int VERSION_4 = 4;
    /**
     * Version 4, then the stopped tables whose requested snapshot failed, each with the reason (the
     * database's message, shortened), so that the readout says {@code failed} and why after a restore.
     */
    static final int VERSION_5 = 5;
    static final int CURRENT_VERSION = VERSION_5;

    /** The statuses in the order version 1 wrote their ordinals; frozen. */
    private static final EnumeratorState.StreamStatus[] VERSION_1_STATUSES = {EnumeratorState.StreamStatus.NOT_CREATED,
        EnumeratorState.StreamStatus.ASSIGNED, EnumeratorState.StreamStatus.RETURNED};

    /** The codes of version 2 and later; never change or reuse one. */
    private static final EnumCodes<EnumeratorState.StreamStatus> STATUSES = EnumCodes.of(
            EnumeratorState.StreamStatus.class, "stream status", Map.of(EnumeratorState.StreamStatus.NOT_CREATED, 1,
                    EnumeratorState.StreamStatus.ASSIGNED, 2, EnumeratorState.StreamStatus.RETURNED, 3));

    private final SimpleVersionedSerializer<P> positions;
    private final CdcSplitSerializer<P, M> splits;

    public EnumeratorStateSerializer(SimpleVersionedSerializer<P> positions, SimpleVersionedSerializer<M> marks,
            KeyOrder keyOrder) {
        this.positions = positions;
        this.splits = new CdcSplitSerializer<>(positions, marks, keyOrder);
    }

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(EnumeratorState<P, M> state) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        out.writeInt(StateIO.FORMAT_VERSION);
        out.writeInt(splits.getVersion());
        out.writeBoolean(state.initialized);
        out.writeBoolean(state.streamStart != null);
        if (state.streamStart != null) {
            StateIO.writeVersioned(out, positions, state.streamStart);
        }
        out.writeBoolean(state.history != null);
        if (state.history != null) {
            out.writeInt(SchemaHistorySerializer.INSTANCE.getVersion());
            SchemaHistorySerializer.INSTANCE.write(out, state.history);
        }
        out.writeInt(state.tables.size());
        for (TableId t : state.tables) {
            StateIO.writeTableId(out, t);
        }
        out.writeInt(state.plans.size());
        for (TablePlan plan : state.plans) {
            splits.writePlan(out, plan);
        }
        writeChunks(out, state.unassigned);
        writeChunks(out, state.inFlight);
        writeChunks(out, state.finished);
        STATUSES.write(out, state.streamStatus);
        out.writeBoolean(state.returnedStream != null);
        if (state.returnedStream != null) {
            byte[] bytes = splits.serialize(state.returnedStream);
            out.writeInt(bytes.length);
            out.write(bytes);
        }
        writeControl(out, state.control);
        return out.getCopyOfBuffer();
    }

    @Override
    public EnumeratorState<P, M> deserialize(int version, byte[] serialized) throws IOException {
        switch (version) {
            case VERSION_1:
            case VERSION_2:
            case VERSION_3:
            case VERSION_4:
            case VERSION_5:
                return deserializeVersion(version, serialized);
            default:
                throw StateIO.unknownVersion("the enumerator state", version, CURRENT_VERSION);
        }
    }

    @SuppressWarnings("unchecked")
    private EnumeratorState<P, M> deserializeVersion(int version, byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        int format = StateIO.requireFormat(in.readInt(), "the enumerator state");
        int splitVersion = in.readInt();
        boolean initialized = in.readBoolean();
        P streamStart = in.readBoolean() ? StateIO.readVersioned(in, positions) : null;
        SchemaHistory history = in.readBoolean() ? SchemaHistorySerializer.INSTANCE.read(in.readInt(), in) : null;
        int tableCount = StateIO.readCount(in);
        Set<TableId> tables = new HashSet<>();
        for (int i = 0; i < tableCount; i++) {
            tables.add(StateIO.readTableId(in));
        }
        int planCount = StateIO.readCount(in);
        List<TablePlan> plans = new ArrayList<>(planCount);
        for (int i = 0; i < planCount; i++) {
            plans.add(splits.readPlan(in, splitVersion, format));
        }
        List<ChunkSplit<M>> unassigned = readChunks(in, splitVersion, format);
        List<ChunkSplit<M>> inFlight = readChunks(in, splitVersion, format);
        List<ChunkSplit<M>> finished = readChunks(in, splitVersion, format);
        EnumeratorState.StreamStatus status = version == VERSION_1
                ? StateIO.enumAt(VERSION_1_STATUSES, in.readByte(), "stream status")
                : STATUSES.read(in);
        StreamSplit<P, M> returned = null;
        if (in.readBoolean()) {
            byte[] bytes = new byte[StateIO.readCount(in)];
            in.readFully(bytes);
            if (!(splits.deserialize(splitVersion, bytes) instanceof StreamSplit<?, ?> stream)) {
                throw new IOException("The stream split of the enumerator state is a chunk");
            }
            returned = (StreamSplit<P, M>) stream;
        }
        ControlState control = version >= VERSION_3 ? readControl(in, version, splitVersion, format)
                : ControlState.EMPTY;
        StateIO.requireFullyRead(in, "the enumerator state");
        return new EnumeratorState<>(initialized, streamStart, history, tables, plans, unassigned, inFlight, finished,
                status, returned, control);
    }

    private void writeControl(DataOutputView out, ControlState control) throws IOException {
        writeTables(out, control.paused());
        writeTables(out, control.stopped());
        out.writeInt(control.rereads().size());
        for (TablePlan plan : control.rereads()) {
            splits.writePlan(out, plan);
        }
        writeTables(out, control.streamSnapshotting());
        out.writeInt(control.applied().size());
        for (String id : new java.util.TreeSet<>(control.applied())) {
            StateIO.writeString(out, id);
        }
        writeTableStrings(out, control.rowFilters());
        writeTableStrings(out, control.failed());
    }

    private static void writeTableStrings(DataOutputView out, Map<TableId, String> strings) throws IOException {
        out.writeInt(strings.size());
        for (Map.Entry<TableId, String> e : new java.util.TreeMap<>(strings).entrySet()) {
            StateIO.writeTableId(out, e.getKey());
            StateIO.writeString(out, e.getValue());
        }
    }

    private static Map<TableId, String> readTableStrings(DataInputView in) throws IOException {
        int n = StateIO.readCount(in);
        Map<TableId, String> strings = new java.util.HashMap<>();
        for (int i = 0; i < n; i++) {
            strings.put(StateIO.readTableId(in), StateIO.readString(in));
        }
        return strings;
    }

    private ControlState readControl(DataInputView in, int version, int splitVersion, int format) throws IOException {
        Set<TableId> paused = readTables(in);
        Set<TableId> stopped = readTables(in);
        int n = StateIO.readCount(in);
        List<TablePlan> rereads = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            rereads.add(splits.readPlan(in, splitVersion, format));
        }
        Set<TableId> snapshotting = readTables(in);
        int ids = StateIO.readCount(in);
        Set<String> applied = new HashSet<>();
        for (int i = 0; i < ids; i++) {
            applied.add(StateIO.readString(in));
        }
        Map<TableId, String> rowFilters = version >= VERSION_4 ? readTableStrings(in) : Map.of();
        Map<TableId, String> failed = version >= VERSION_5 ? readTableStrings(in) : Map.of();
        return new ControlState(paused, stopped, rereads, snapshotting, applied, rowFilters, failed);
    }

    private static void writeTables(DataOutputView out, Set<TableId> tables) throws IOException {
        out.writeInt(tables.size());
        for (TableId t : new java.util.TreeSet<>(tables)) {
            StateIO.writeTableId(out, t);
        }
    }

    private static Set<TableId> readTables(DataInputView in) throws IOException {
        int n = StateIO.readCount(in);
        Set<TableId> tables = new HashSet<>();
        for (int i = 0; i < n; i++) {
            tables.add(StateIO.readTableId(in));
        }
        return tables;
    }

    private void writeChunks(DataOutputView out, List<ChunkSplit<M>> chunks) throws IOException {
        out.writeInt(chunks.size());
        for (ChunkSplit<M> c : chunks) {
            splits.writeChunk(out, c);
        }
    }

    private List<ChunkSplit<M>> readChunks(DataInputView in, int splitVersion, int format) throws IOException {
        int n = StateIO.readCount(in);
        List<ChunkSplit<M>> chunks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            chunks.add(splits.readChunk(in, splitVersion, format));
        }
        return chunks;
    }
}
