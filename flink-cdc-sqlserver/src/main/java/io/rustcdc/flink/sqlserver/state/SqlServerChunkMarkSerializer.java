package io.rustcdc.flink.sqlserver.state;

import io.rustcdc.flink.source.serde.StateIO;
import io.rustcdc.flink.sqlserver.Lsn;
import io.rustcdc.flink.sqlserver.SqlServerChunkMark;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** The state format of a chunk's mark, {@link SqlServerChunkMark}. */
@Internal
public final class SqlServerChunkMarkSerializer implements SimpleVersionedSerializer<SqlServerChunkMark> {
    public static final SqlServerChunkMarkSerializer INSTANCE = new SqlServerChunkMarkSerializer();

    /** The log's end LSN, its 10 bytes (a mark was an {@link Lsn}): read as a mark without an object_id. */
    static final int VERSION_1 = 1;
    /** Version 1, then the object_id of the table the chunk read (4 bytes). */
    static final int VERSION_2 = 2;
    static final int CURRENT_VERSION = VERSION_2;

    private static final String WHAT = "a SQL Server chunk mark";

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(SqlServerChunkMark mark) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(Lsn.BYTES + 4);
        out.write(mark.logEnd().bytes());
        out.writeInt(mark.objectId());
        return out.getCopyOfBuffer();
    }

    @Override
    public SqlServerChunkMark deserialize(int version, byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        SqlServerChunkMark mark;
        switch (version) {
            case VERSION_1:
                mark = SqlServerChunkMark.withoutObject(readLsn(in));
                break;
            case VERSION_2:
                mark = deserializeVersion2(in);
                break;
            default:
                throw StateIO.unknownVersion(WHAT, version, CURRENT_VERSION);
        }
        StateIO.requireFullyRead(in, WHAT);
        return mark;
    }

    private static SqlServerChunkMark deserializeVersion2(DataInputDeserializer in) throws IOException {
        Lsn logEnd = readLsn(in);
        int objectId = in.readInt();
        if (objectId == SqlServerChunkMark.UNKNOWN_OBJECT) {
            throw new IOException("Not " + WHAT + " of version " + VERSION_2 + ": object_id 0, which no table has");
        }
        return SqlServerChunkMark.of(logEnd, objectId);
    }

    /** An LSN's 10 bytes. */
    static Lsn readLsn(DataInputDeserializer in) throws IOException {
        byte[] b = new byte[Lsn.BYTES];
        in.readFully(b);
        return Lsn.of(b);
    }
}
