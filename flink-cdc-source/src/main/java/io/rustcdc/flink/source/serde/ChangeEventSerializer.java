package io.rustcdc.flink.source.serde;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The Flink serializer of {@link ChangeEvent}s, for the network and for state: every field exactly
 * ({@link ChangeEventCodec}), positions by the connector's own serializer ({@link PositionFormat}).
 * Its snapshot ({@link ChangeEventSerializerSnapshot}) records the event format and the position
 * serializer. Events are immutable, so a copy is the event itself. Not thread-safe (it caches the
 * bytes of the row types, shapes and table ids it wrote): {@link #duplicate()} gives each thread its own.
 */
@Internal
public final class ChangeEventSerializer extends TypeSerializer<ChangeEvent> {
    private static final long serialVersionUID = 1L;

    /** Op, table, rows, shape, source, transaction, shape changes: see {@link ChangeEventCodec}. */
    static final int FORMAT_1 = 1;
    static final int CURRENT_FORMAT = FORMAT_1;

    private static final ChangeEvent EMPTY = ChangeEvent.builder(Op.READ, TableId.of("", null, ""),
            SourceInfo.snapshot("", null)).build();

    private final PositionFormat positions;
    /** Made at first use: neither serialized with this serializer nor shared by its duplicates. */
    private transient EncodingCache cache;

    public ChangeEventSerializer(PositionFormat positions) {
        this.positions = positions;
    }

    /** The serializer that reads events of {@code format}, from a snapshot. */
    static ChangeEventSerializer ofFormat(int format, PositionFormat positions) {
        if (format != FORMAT_1) {
            throw StateIO.unknownVersion("ChangeEvents", format, CURRENT_FORMAT);
        }
        return new ChangeEventSerializer(positions);
    }

    PositionFormat positions() {
        return positions;
    }

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public TypeSerializer<ChangeEvent> duplicate() {
        return new ChangeEventSerializer(positions); // a position serializer of its own, made when first used, and a cache
    }

    /** An event to reuse, which no read ever fills: events are immutable. */
    @Override
    public ChangeEvent createInstance() {
        return EMPTY;
    }

    @Override
    public ChangeEvent copy(ChangeEvent from) {
        return from;
    }

    @Override
    public ChangeEvent copy(ChangeEvent from, ChangeEvent reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(ChangeEvent event, DataOutputView out) throws IOException {
        if (cache == null) {
            cache = new EncodingCache();
        }
        ChangeEventCodec.write(out, event, positions, cache);
    }

    @Override
    public ChangeEvent deserialize(DataInputView in) throws IOException {
        return ChangeEventCodec.read(in, positions);
    }

    @Override
    public ChangeEvent deserialize(ChangeEvent reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public TypeSerializerSnapshot<ChangeEvent> snapshotConfiguration() {
        return new ChangeEventSerializerSnapshot(CURRENT_FORMAT, positions);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChangeEventSerializer && positions.equals(((ChangeEventSerializer) o).positions);
    }

    @Override
    public int hashCode() {
        return positions.hashCode();
    }

    @Override
    public String toString() {
        return "ChangeEventSerializer{" + positions + "}";
    }
}
