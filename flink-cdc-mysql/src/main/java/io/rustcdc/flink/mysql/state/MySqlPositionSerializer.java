package io.rustcdc.flink.mysql.state;

import io.rustcdc.flink.mysql.MySqlPosition;
import io.rustcdc.flink.mysql.ServerFlavor;
import io.rustcdc.flink.source.serde.EnumCodes;
import io.rustcdc.flink.source.serde.StateIO;
import java.io.IOException;
import java.util.Map;
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
    /** Version 1 with the flavor as an explicit code. */
    static final int VERSION_2 = 2;
    /** Version 2, then the GTID of the transaction the position is inside (nullable string). */
    static final int VERSION_3 = 3;
    /**
     * Version 3, then the server whose binlog the file and offset are in (nullable string: Oracle MySQL's
     * {@code @@server_uuid}, MariaDB's {@code @@server_id}). Positions of earlier versions name no server:
     * they resume by file and offset without the check that the server is the one they were read on.
     */
    static final int VERSION_4 = 4;
    static final int CURRENT_VERSION = VERSION_4;

    /** The flavors in the order version 1 wrote their ordinals; frozen. */
    private static final ServerFlavor[] VERSION_1_FLAVORS = {ServerFlavor.MYSQL, ServerFlavor.MARIADB};

    /** The codes of version 2 and later; never change or reuse one. */
    private static final EnumCodes<ServerFlavor> FLAVORS = EnumCodes.of(ServerFlavor.class, "server flavor",
            Map.of(ServerFlavor.MYSQL, 1, ServerFlavor.MARIADB, 2));

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(MySqlPosition position) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        FLAVORS.write(out, position.flavor());
        StateIO.writeString(out, position.file());
        out.writeLong(position.offset());
        out.writeLong(position.eventsTaken());
        out.writeLong(position.rowsTaken());
        StateIO.writeNullableString(out, position.gtidText());
        StateIO.writeNullableString(out, position.transactionGtid());
        StateIO.writeNullableString(out, position.server());
        return out.getCopyOfBuffer();
    }

    @Override
    public MySqlPosition deserialize(int version, byte[] serialized) throws IOException {
        if (version < VERSION_1 || version > VERSION_4) {
            throw StateIO.unknownVersion("a MySQL/MariaDB position", version, CURRENT_VERSION);
        }
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        ServerFlavor flavor = version == VERSION_1
                ? StateIO.enumAt(VERSION_1_FLAVORS, in.readByte(), "a server flavor")
                : FLAVORS.read(in);
        String file = StateIO.readString(in);
        long offset = in.readLong();
        long events = in.readLong();
        long rows = in.readLong();
        String gtids = StateIO.readNullableString(in);
        String transactionGtid = version >= VERSION_3 ? StateIO.readNullableString(in) : null;
        String server = version >= VERSION_4 ? StateIO.readNullableString(in) : null;
        StateIO.requireFullyRead(in, "a MySQL/MariaDB position");
        try {
            return MySqlPosition.restore(flavor, file, offset, events, rows, gtids, transactionGtid, server);
        } catch (IllegalArgumentException e) {
            throw new IOException("Not a MySQL/MariaDB position in state: " + e.getMessage(), e);
        }
    }
}
