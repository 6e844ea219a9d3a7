package io.rustcdc.flink.postgres.state;

import io.rustcdc.flink.postgres.Lsn;
import io.rustcdc.flink.postgres.PostgresPosition;
import io.rustcdc.flink.source.serde.StateIO;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** The state format of {@link PostgresPosition}. */
@Internal
public final class PostgresPositionSerializer implements SimpleVersionedSerializer<PostgresPosition> {
    public static final PostgresPositionSerializer INSTANCE = new PostgresPositionSerializer();

    /** LSN, events taken, xid: three longs. */
    static final int VERSION_1 = 1;
    static final int CURRENT_VERSION = VERSION_1;

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(PostgresPosition position) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(24);
        out.writeLong(position.lsn().asLong());
        out.writeLong(position.eventsTaken());
        out.writeLong(position.xid());
        return out.getCopyOfBuffer();
    }

    @Override
    public PostgresPosition deserialize(int version, byte[] serialized) throws IOException {
        switch (version) {
            case VERSION_1:
                return deserializeVersion1(serialized);
            default:
                throw StateIO.unknownVersion("a PostgreSQL position", version, CURRENT_VERSION);
        }
    }

    private static PostgresPosition deserializeVersion1(byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        Lsn lsn = Lsn.valueOf(in.readLong());
        long eventsTaken = in.readLong();
        long xid = in.readLong();
        StateIO.requireFullyRead(in, "a PostgreSQL position");
        return eventsTaken == 0 && xid == PostgresPosition.NO_TRANSACTION
                ? PostgresPosition.at(lsn)
                : PostgresPosition.inTransaction(lsn, eventsTaken, xid);
    }
}
