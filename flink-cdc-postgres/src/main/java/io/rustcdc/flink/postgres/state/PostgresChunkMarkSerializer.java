package io.rustcdc.flink.postgres.state;

import io.rustcdc.flink.postgres.Lsn;
import io.rustcdc.flink.postgres.PostgresChunkMark;
import io.rustcdc.flink.source.serde.StateIO;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** The state format of {@link PostgresChunkMark}. */
@Internal
public final class PostgresChunkMarkSerializer implements SimpleVersionedSerializer<PostgresChunkMark> {
    public static final PostgresChunkMarkSerializer INSTANCE = new PostgresChunkMarkSerializer();

    /** xmin, xmax, count and in-progress xids, high LSN. */
    static final int VERSION_1 = 1;
    /** Version 1, then the relation id of the table the chunk read (a mark of version 1 has none). */
    static final int VERSION_2 = 2;
    /** Version 2, then whether the mark holds its key's order, and that order (a mark of version 2 holds none). */
    static final int VERSION_3 = 3;
    static final int CURRENT_VERSION = VERSION_3;

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(PostgresChunkMark mark) throws IOException {
        long[] xip = mark.inProgress();
        DataOutputSerializer out = new DataOutputSerializer(36 + 8 * xip.length);
        out.writeLong(mark.xmin());
        out.writeLong(mark.xmax());
        out.writeInt(xip.length);
        for (long x : xip) {
            out.writeLong(x);
        }
        out.writeLong(mark.highLsn().asLong());
        out.writeLong(mark.relationId());
        out.writeBoolean(mark.keyOrder() != null);
        if (mark.keyOrder() != null) {
            out.writeUTF(mark.keyOrder());
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public PostgresChunkMark deserialize(int version, byte[] serialized) throws IOException {
        switch (version) {
            case VERSION_1:
                return deserializeVersion1(serialized);
            case VERSION_2:
                return deserializeVersion2(serialized);
            case VERSION_3:
                return deserializeVersion3(serialized);
            default:
                throw StateIO.unknownVersion("a PostgreSQL chunk mark", version, CURRENT_VERSION);
        }
    }

    private static PostgresChunkMark deserializeVersion1(byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        PostgresChunkMark mark = readSnapshotAndLsn(in);
        StateIO.requireFullyRead(in, "a PostgreSQL chunk mark");
        return mark;
    }

    private static PostgresChunkMark deserializeVersion2(byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        PostgresChunkMark mark = readSnapshotAndLsn(in).ofRelation(in.readLong());
        StateIO.requireFullyRead(in, "a PostgreSQL chunk mark");
        return mark;
    }

    private static PostgresChunkMark deserializeVersion3(byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        PostgresChunkMark mark = readSnapshotAndLsn(in);
        long relationId = in.readLong();
        mark = mark.ofRelation(relationId, in.readBoolean() ? in.readUTF() : null);
        StateIO.requireFullyRead(in, "a PostgreSQL chunk mark");
        return mark;
    }

    /** The fields of version 1: a mark without a relation id. */
    private static PostgresChunkMark readSnapshotAndLsn(DataInputDeserializer in) throws IOException {
        long xmin = in.readLong();
        long xmax = in.readLong();
        long[] xip = new long[StateIO.readCount(in)];
        for (int i = 0; i < xip.length; i++) {
            xip[i] = in.readLong();
        }
        return PostgresChunkMark.of(xmin, xmax, xip, Lsn.valueOf(in.readLong()));
    }
}
