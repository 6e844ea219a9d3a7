package io.rustcdc.flink.source.serde;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.SourcePosition;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The Flink type of {@link ChangeEvent}s: serialized exactly by {@link ChangeEventSerializer}, never
 * by Kryo, with positions in the connector's own versioned format. A {@code CdcSource} emitting
 * events gives it as its produced type; name it yourself where Flink cannot infer it, e.g. after a
 * map: {@code .returns(source.getProducedType())}.
 *
 * <pre>{@code
 * TypeInformation<ChangeEvent> type = ChangeEventTypeInfo.of(connector.positionSerializer());
 * }</pre>
 */
@PublicEvolving
public final class ChangeEventTypeInfo extends TypeInformation<ChangeEvent> {
    private static final long serialVersionUID = 1L;

    private final PositionFormat positions;

    private ChangeEventTypeInfo(PositionFormat positions) {
        this.positions = positions;
    }

    /**
     * The type of events whose positions {@code positions} writes (a connector's {@code
     * positionSerializer()}).
     *
     * @throws IllegalArgumentException when the serializer's class has no public no-argument constructor
     */
    public static ChangeEventTypeInfo of(SimpleVersionedSerializer<? extends SourcePosition> positions) {
        return new ChangeEventTypeInfo(PositionFormat.of(positions));
    }

    /** The type of events without positions: an event with one fails to serialize, naming the remedy. */
    public static ChangeEventTypeInfo withoutPositions() {
        return new ChangeEventTypeInfo(PositionFormat.none());
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<ChangeEvent> getTypeClass() {
        return ChangeEvent.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<ChangeEvent> createSerializer(SerializerConfig config) {
        return new ChangeEventSerializer(positions);
    }

    /**
     * Flink 1.20's abstract form of {@link #createSerializer(SerializerConfig)} (gone in 2.x, where this
     * is a plain method): the same serializer, so one class serves both.
     */
    @Deprecated
    public TypeSerializer<ChangeEvent> createSerializer(org.apache.flink.api.common.ExecutionConfig config) {
        return new ChangeEventSerializer(positions);
    }

    @Override
    public String toString() {
        return "ChangeEvent(" + positions + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChangeEventTypeInfo && positions.equals(((ChangeEventTypeInfo) o).positions);
    }

    @Override
    public int hashCode() {
        return positions.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof ChangeEventTypeInfo;
    }
}
