package io.rustcdc.flink.mysql.state;

import io.rustcdc.flink.mysql.MySqlPosition;
import io.rustcdc.flink.mysql.ServerFlavor;
import io.rustcdc.flink.source.serde.StateIO;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** The state format of {@link MySqlPosition}. */
@Internal
public final class MySqlPositionSerializer implements SimpleVersionedSerializer<MySqlPosition> {
    public static final MySqlPositionSerializer INSTANCE = new MySqlPositionSerializer();

    /** Flavor (byte: ordinal), file, offset, events taken, rows taken, GTIDs (nullable string). */
    static final int VERSION_1 = 1;
    static final int CURRENT_VERSION = VERSION_1;

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(MySqlPosition position) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeByte(position.flavor().ordinal());
        StateIO.writeString(out, position.file());
        out.writeLong(position.offset());
        out.writeLong(position.eventsTaken());
        out.writeLong(position.rowsTaken());
        StateIO.writeNullableString(out, position.gtidText());
        return out.getCopyOfBuffer();
    }

    @Override
    public MySqlPosition deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION_1) {
            throw StateIO.unknownVersion("a MySQL/MariaDB position", version, CURRENT_VERSION);
        }
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        ServerFlavor flavor = StateIO.enumAt(ServerFlavor.values(), in.readByte(), "a server flavor");
        String file = StateIO.readString(in);
        long offset = in.readLong();
        long events = in.readLong();
        long rows = in.readLong();
        String gtids = StateIO.readNullableString(in);
        StateIO.requireFullyRead(in, "a MySQL/MariaDB position");
        return MySqlPosition.restore(flavor, file, offset, events, rows, gtids);
    }
}
