package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import javax.annotation.Nullable;

/**
 * The binlog positions a catalogue session reads on its connection: the binlog's end, with the
 * GTIDs executed before it, and MariaDB's position of a consistent snapshot. Also the server's
 * character sets, which reading the binlog needs. Not thread-safe.
 */
final class BinlogPositions {
    private final MySqlSourceConfig config;
    private final Connection connection;
    /** The server's character sets by collation id, for backfills; read once. */
    @Nullable private Map<Integer, String> charsets;
    /** The server's identity ({@link MySqlPosition#server()}); read once, as a connection stays on one server. */
    @Nullable private String server;

    BinlogPositions(MySqlSourceConfig config, Connection connection) {
        this.config = config;
        this.connection = connection;
    }

    /**
     * The binlog's end now, with the GTIDs executed before it: on MariaDB those of {@code
     * BINLOG_GTID_POS}, on Oracle MySQL with {@code gtid_mode = ON} a set read before the end, then
     * completed from the binlog up to it ({@link ExecutedGtids}); without GTIDs, file and offset only.
     */
    MySqlPosition current() {
        if (config.flavor() == ServerFlavor.MYSQL) {
            try {
                if (!ExecutedGtids.on(connection)) {
                    return binlogEnd();
                }
                MySqlGtidSet before = ExecutedGtids.now(connection);
                return ExecutedGtids.before(config, connection, charsets(), before, binlogEnd());
            } catch (SQLException e) {
                throw MySqlConnections.failure(config, e);
            }
        }
        try (Statement s = connection.createStatement()) {
            s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
            try {
                return withGtids(snapshotPosition());
            } finally {
                s.execute("COMMIT");
            }
        } catch (SQLException e) {
            throw MySqlConnections.failure(config, e);
        }
    }

    /**
     * The position in MariaDB's {@code binlog_snapshot_file} and {@code binlog_snapshot_position}: the
     * open consistent snapshot's, or the last commit's, unless another session's {@code SHOW STATUS}
     * wrote its own there meanwhile (see {@link ChunkReader}).
     */
    MySqlPosition snapshotPosition() throws SQLException {
        String file = null;
        long offset = -1;
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SHOW STATUS LIKE 'binlog_snapshot_%'")) {
            while (rs.next()) {
                if ("binlog_snapshot_file".equalsIgnoreCase(rs.getString(1))) {
                    file = rs.getString(2);
                } else if ("binlog_snapshot_position".equalsIgnoreCase(rs.getString(1))) {
                    offset = Long.parseLong(rs.getString(2));
                }
            }
        }
        if (file == null || file.isEmpty() || offset < 4) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "The " + config.flavor() + " server does not "
                    + "report the binlog position of a consistent snapshot (binlog_snapshot_file/position), which "
                    + "an exact snapshot needs. Snapshots are supported on MariaDB; on Oracle MySQL start the "
                    + "source with startup mode 'latest' or 'committed' for now.");
        }
        return MySqlPosition.at(config.flavor(), file, offset).on(server());
    }

    /** The binlog's end, as {@link #binlogStatus} shows it. */
    MySqlPosition binlogEnd() throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = binlogStatus(s, config.flavor())) {
            if (!rs.next()) {
                throw new CdcException(CdcException.Kind.PREREQUISITE, "SHOW MASTER STATUS (SHOW BINARY LOG "
                        + "STATUS) shows no binlog: start the server with binary logging on (--log-bin).");
            }
            MySqlPosition end = MySqlPosition.at(config.flavor(), rs.getString(1), rs.getLong(2));
            return end.on(server());
        }
    }

    /** The identity of the server this connection is to ({@link BinlogServer}). */
    String server() throws SQLException {
        if (server == null) {
            server = BinlogServer.identity(connection, config.flavor());
        }
        return server;
    }

    /**
     * The server's binlog status (file, position, filters): on MariaDB {@code SHOW MASTER STATUS}; on Oracle
     * MySQL {@code SHOW BINARY LOG STATUS} (8.2+; 8.4 removed the older name), else {@code SHOW MASTER STATUS}.
     * Not tried first with a statement MariaDB refuses, which its driver logs as a WARN (this runs per chunk).
     */
    static ResultSet binlogStatus(Statement s, ServerFlavor flavor) throws SQLException {
        if (flavor == ServerFlavor.MYSQL) {
            try {
                return s.executeQuery("SHOW BINARY LOG STATUS");
            } catch (SQLException olderServer) {
                // before 8.2
            }
        }
        return s.executeQuery("SHOW MASTER STATUS");
    }

    /** The MariaDB position with the GTIDs executed before it: BINLOG_GTID_POS is exact for a file and offset. */
    MySqlPosition withGtids(MySqlPosition at) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("SELECT BINLOG_GTID_POS(?, ?)")) {
            s.setString(1, at.file());
            s.setLong(2, at.offset());
            try (ResultSet rs = s.executeQuery()) {
                String gtids = rs.next() ? rs.getString(1) : null;
                return gtids == null ? at
                        : MySqlPosition.at(at.file(), at.offset(), MariaDbGtidPosition.parse(gtids)).on(at.server());
            }
        }
    }

    /** The server's character sets by collation id (for decoding the binlog), read once. */
    Map<Integer, String> charsets() {
        if (charsets == null) {
            try {
                charsets = BinlogTables.charsets(connection);
            } catch (SQLException e) {
                throw MySqlConnections.failure(config, e);
            }
        }
        return charsets;
    }
}
