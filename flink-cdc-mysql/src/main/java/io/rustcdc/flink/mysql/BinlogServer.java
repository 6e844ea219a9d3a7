package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which server a binlog is of ({@link MySqlPosition#server()}): Oracle MySQL's {@code @@server_uuid},
 * unique per data directory; MariaDB's {@code @@server_id}, which has no UUID and whose id must differ
 * between the servers of one replication topology (two unrelated MariaDB servers with the same id, such
 * as the default 1, look alike). A file and offset resume only on the server they were read on: servers
 * often name their binlog files alike (Oracle MySQL's default {@code binlog.000001} on every server).
 */
final class BinlogServer {
    private static final Logger LOG = LoggerFactory.getLogger(BinlogServer.class);

    private BinlogServer() {}

    /** The identity of the server {@code c} is connected to. */
    static String identity(Connection c, ServerFlavor flavor) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(flavor == ServerFlavor.MYSQL ? "SELECT @@server_uuid"
                        : "SELECT @@server_id")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * A resume at {@code from}'s file and offset on {@code server} (its name, e.g. {@code MYSQL at
     * host:port}, and {@code identity}): fails when {@code from} was read on another server. A position
     * that names no server (restored from state written before the servers were recorded, or given as
     * text) is not checked, and says so.
     */
    static void requireSame(MySqlPosition from, String server, String identity) {
        if (from.server() == null) {
            LOG.warn("Resuming the binlog of {} at {} by file and offset without checking that it is the server the "
                    + "position was read on ({}): the position names no server (it was given as text, or restored "
                    + "from state written by an earlier version). Positions taken from now on name it.",
                    server, from, describe(from.flavor(), identity));
            return;
        }
        if (from.server().equals(identity)) {
            return;
        }
        throw new CdcException(CdcException.Kind.POSITION_LOST, "The position " + from.file() + ":" + from.offset()
                + " was read in the binlog of the server with " + describe(from.flavor(), from.server()) + ", but "
                + server + " is the server with " + describe(from.flavor(), identity) + ": another server behind the "
                + "same address (a failover to a replica, a restore pointed at another host), whose binlog file of "
                + "that name holds other changes, so reading it at that offset would skip or repeat changes. Resume "
                + "by GTIDs (a position taken with GTIDs resumes on any server of the replication history), or "
                + "restart the source without its state so that the tables are read again, or from a position of "
                + "this server ('scan.startup.mode' = 'specific-offset', StartupMode.position), accepting that what "
                + "lies between is not read.");
    }

    private static String describe(ServerFlavor flavor, String identity) {
        return (flavor == ServerFlavor.MYSQL ? "@@server_uuid " : "@@server_id ") + identity;
    }
}
