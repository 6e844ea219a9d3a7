package io.rustcdc.flink.sqlserver.state;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.serde.StateIO;
import io.rustcdc.flink.sqlserver.ChangeOperation;
import io.rustcdc.flink.sqlserver.Lsn;
import io.rustcdc.flink.sqlserver.SqlServerPosition;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** The state format of {@link SqlServerPosition}. */
@Internal
public final class SqlServerPositionSerializer implements SimpleVersionedSerializer<SqlServerPosition> {
    public static final SqlServerPositionSerializer INSTANCE = new SqlServerPositionSerializer();

    /**
     * Commit LSN (10 bytes); then 0 after a commit, or 1 after a change followed by its sequence
     * value (10 bytes) and operation (1 byte: SQL Server's {@code __$operation} code, 1 to 4).
     * Written by development builds only, before positions held the command id: its positions after
     * a commit are read, those after a change are refused.
     */
    static final int VERSION_1 = 1;
    /** Version 1, the command id (4 bytes) before the sequence value of a position after a change. */
    static final int VERSION_2 = 2;
    static final int CURRENT_VERSION = VERSION_2;

    private static final String WHAT = "a SQL Server position";

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(SqlServerPosition position) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(2 * Lsn.BYTES + 6);
        out.write(position.commitLsn().bytes());
        if (position.isCommitEnd()) {
            out.writeByte(0);
        } else {
            out.writeByte(1);
            out.writeInt(position.commandId());
            out.write(position.seqval().bytes());
            out.writeByte(position.operation().code());
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public SqlServerPosition deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION_1 && version != VERSION_2) {
            throw StateIO.unknownVersion(WHAT, version, CURRENT_VERSION);
        }
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        Lsn commit = SqlServerChunkMarkSerializer.readLsn(in);
        byte kind = in.readByte();
        SqlServerPosition position;
        if (kind == 0) {
            position = SqlServerPosition.afterCommit(commit);
        } else if (kind == 1) {
            if (version == VERSION_1) {
                throw new CdcException(CdcException.Kind.STATE, "Cannot read " + WHAT + " after a change of "
                        + "serializer version 1 (a development build's, without the change's command id): start the "
                        + "source again from a snapshot or from a commit LSN ('specific-offset')");
            }
            int commandId = in.readInt();
            Lsn seqval = SqlServerChunkMarkSerializer.readLsn(in);
            int code = in.readUnsignedByte();
            try {
                position = SqlServerPosition.afterChange(commit, commandId, seqval, ChangeOperation.of(code));
            } catch (IllegalArgumentException e) {
                throw new IOException("Not " + WHAT + " in state: " + e.getMessage(), e);
            }
        } else {
            throw new IOException("Not " + WHAT + " in state: kind byte " + kind + " (0 after a commit, 1 after a change)");
        }
        StateIO.requireFullyRead(in, WHAT);
        return position;
    }
}
