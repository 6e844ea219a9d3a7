package io.rustcdc.flink.sqlserver.state;

import io.rustcdc.flink.source.serde.StateIO;
import io.rustcdc.flink.sqlserver.Lsn;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;

/** The state format of a chunk's mark, an {@link Lsn}: its 10 bytes. */
@Internal
public final class LsnSerializer implements SimpleVersionedSerializer<Lsn> {
    public static final LsnSerializer INSTANCE = new LsnSerializer();

    /** The 10 bytes of the LSN. */
    static final int VERSION_1 = 1;
    static final int CURRENT_VERSION = VERSION_1;

    private static final String WHAT = "a SQL Server chunk mark (LSN)";

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(Lsn lsn) {
        return lsn.bytes();
    }

    @Override
    public Lsn deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION_1) {
            throw StateIO.unknownVersion(WHAT, version, CURRENT_VERSION);
        }
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        Lsn lsn = read(in);
        StateIO.requireFullyRead(in, WHAT);
        return lsn;
    }

    static Lsn read(DataInputDeserializer in) throws IOException {
        byte[] b = new byte[Lsn.BYTES];
        in.readFully(b);
        return Lsn.of(b);
    }
}
