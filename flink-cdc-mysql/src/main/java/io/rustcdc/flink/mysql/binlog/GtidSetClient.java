package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.io.ByteArrayOutputStream;
import com.github.shyiko.mysql.binlog.network.protocol.command.Command;
import com.github.shyiko.mysql.binlog.network.protocol.command.CommandType;
import io.rustcdc.flink.mysql.MySqlGtidSet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * A binlog client that asks Oracle MySQL for the binlog by a {@link MySqlGtidSet} of its own: the
 * client library's GTID set knows no tags (MySQL 8.3+), neither in its text nor in the binary form it
 * sends, so the dump request ({@code COM_BINLOG_DUMP_GTID}) is written here from {@link
 * MySqlGtidSet#encoded()}, tagged or not. Without such a set (by file and offset; MariaDB) the
 * library asks as it does.
 */
@Internal
public final class GtidSetClient extends BinaryLogClient {
    @Nullable private MySqlGtidSet gtids;
    private boolean fromPosition;
    private volatile boolean abandoned;

    GtidSetClient(String hostname, int port, String username, String password) {
        super(hostname, port, username, password);
    }

    /**
     * Asks Oracle MySQL for every transaction not in {@code executed}, in its binlog's order: from the
     * file and offset set on this client at the earliest with {@code fromPosition}, else from the
     * first file the server holds that has them.
     */
    public void dumpAfter(MySqlGtidSet executed, boolean fromPosition) {
        this.gtids = executed;
        this.fromPosition = fromPosition;
    }

    /**
     * This client's connect was given up: a connect still under way on the client's own thread stops before its dump
     * request, so that it never takes the server-id from the stream opened after it.
     */
    public void abandon() {
        abandoned = true;
    }

    @Override
    protected void requestBinaryLogStream() throws IOException {
        if (abandoned) {
            throw new IOException("the binlog connection was given up before its dump request");
        }
        if (gtids == null) {
            super.requestBinaryLogStream();
            return;
        }
        long serverId = isBlocking() ? getServerId() : 0; // a non-blocking dump is server-id 0's (mysqlbinlog's)
        String file = fromPosition ? getBinlogFilename() : "";
        long offset = fromPosition ? getBinlogPosition() : 4;
        byte[] set = gtids.encoded();
        Command dump = () -> {
            byte[] name = file.getBytes(StandardCharsets.UTF_8);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeInteger(CommandType.BINLOG_DUMP_GTID.ordinal(), 1);
            out.writeInteger(0, 2); // flags: block (or not, by server-id) as a replica does
            out.writeLong(serverId, 4);
            out.writeInteger(name.length, 4);
            out.write(name);
            out.writeLong(offset, 8);
            out.writeInteger(set.length, 4);
            out.write(set);
            return out.toByteArray();
        };
        channel.write(dump);
    }
}
