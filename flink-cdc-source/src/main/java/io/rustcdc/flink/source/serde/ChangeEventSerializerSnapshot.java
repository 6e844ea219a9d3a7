package io.rustcdc.flink.source.serde;

import io.rustcdc.flink.source.model.ChangeEvent;
import java.io.IOException;
import java.util.Objects;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What a {@link ChangeEventSerializer} wrote state with: the event format and the class of the
 * connector's position serializer (or none). State of an older event format is to be read with that
 * format and migrated; state of a newer one, or of another position serializer, is incompatible.
 */
@Internal
public final class ChangeEventSerializerSnapshot implements TypeSerializerSnapshot<ChangeEvent> {
    /** The event format, then the position serializer's class name (nullable). */
    private static final int VERSION_1 = 1;

    private int format;
    private PositionFormat positions;

    /** For Flink, which makes a snapshot by its class and then reads it. */
    public ChangeEventSerializerSnapshot() {}

    ChangeEventSerializerSnapshot(int format, PositionFormat positions) {
        this.format = format;
        this.positions = positions;
    }

    @Override
    public int getCurrentVersion() {
        return VERSION_1;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
        out.writeInt(format);
        StateIO.writeNullableString(out, positions.className());
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader) throws IOException {
        if (readVersion != VERSION_1) {
            throw StateIO.unknownVersion("a ChangeEvent serializer snapshot", readVersion, VERSION_1);
        }
        format = in.readInt();
        positions = PositionFormat.named(StateIO.readNullableString(in), userCodeClassLoader);
    }

    @Override
    public TypeSerializer<ChangeEvent> restoreSerializer() {
        return ChangeEventSerializer.ofFormat(format, positions);
    }

    @Override
    public TypeSerializerSchemaCompatibility<ChangeEvent> resolveSchemaCompatibility(
            TypeSerializerSnapshot<ChangeEvent> oldSnapshot) {
        if (!(oldSnapshot instanceof ChangeEventSerializerSnapshot)) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        ChangeEventSerializerSnapshot old = (ChangeEventSerializerSnapshot) oldSnapshot;
        if (!Objects.equals(old.positions.className(), positions.className()) || old.format > format) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        return old.format == format ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                : TypeSerializerSchemaCompatibility.compatibleAfterMigration(); // read old, write current
    }
}
