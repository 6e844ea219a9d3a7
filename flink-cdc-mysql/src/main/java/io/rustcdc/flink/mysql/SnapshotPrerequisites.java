package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;

/**
 * Checks, before a snapshot, that the user can read each table, that each table has a consistent
 * snapshot (InnoDB), and on Oracle MySQL that GTIDs are on and commits in binlog order; each failure names the
 * table or setting
 * and the statement that fixes it.
 */
final class SnapshotPrerequisites {
    /** ER_DBACCESS_DENIED_ERROR, ER_TABLEACCESS_DENIED_ERROR, ER_COLUMNACCESS_DENIED_ERROR. */
    private static final Set<Integer> ACCESS_DENIED = Set.of(1044, 1142, 1143);

    private SnapshotPrerequisites() {}

    static void check(Connection connection, MySqlSourceConfig config, List<TableId> tables) {
        if (config.flavor() == ServerFlavor.MYSQL && !tables.isEmpty()) {
            requireGtidMode(connection, config);
            requireOrderedCommits(connection, config);
        }
        for (TableId table : tables) {
            try (Statement s = connection.createStatement()) {
                s.executeQuery("SELECT 1 FROM " + MySqlSql.qualified(table) + " LIMIT 0").close();
            } catch (SQLException e) {
                if (!ACCESS_DENIED.contains(e.getErrorCode())) {
                    // not a missing grant (a lost connection, a user's query limit)
                    throw MySqlConnections.failure(config, e);
                }
                throw new CdcException(CdcException.Kind.PREREQUISITE, "User '" + config.username() + "' cannot read "
                        + table.database() + "." + table.table() + " for the snapshot (" + e.getMessage() + "): GRANT "
                        + "SELECT ON " + MySqlSql.qualified(table) + " TO '" + config.username() + "';");
            }
            requireInnoDb(connection, config, table);
        }
    }

    /**
     * Oracle MySQL reports no binlog position of a consistent snapshot: a chunk is made exact by a
     * backfill from the GTIDs executed before its snapshot ({@link ChunkReader}), so snapshots need
     * GTIDs.
     */
    private static void requireGtidMode(Connection connection, MySqlSourceConfig config) {
        String mode;
        try (Statement s = connection.createStatement()) {
            MySqlPrerequisites.requireFlavor(connection, config.flavor()); // a MariaDB server has no gtid_mode
            ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_mode");
            mode = rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw MySqlConnections.failure(config, e);
        }
        if (!"ON".equalsIgnoreCase(mode)) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "The Oracle MySQL server at " + config.hostname()
                    + ":" + config.port() + " has gtid_mode = " + mode + ": a snapshot on Oracle MySQL needs GTIDs "
                    + "(each chunk is completed from the binlog after the GTIDs executed before its snapshot, since "
                    + "MySQL reports no binlog position of a consistent snapshot). Set gtid_mode = ON and "
                    + "enforce_gtid_consistency = ON (SET PERSIST enforce_gtid_consistency = ON; then SET PERSIST "
                    + "gtid_mode step by step: OFF_PERMISSIVE, ON_PERMISSIVE, ON), or start the source without a "
                    + "snapshot (startup mode 'latest', 'committed' or a binlog position).");
        }
    }

    /** Fails while the Oracle MySQL server commits out of binlog order: see {@link #unorderedCommits}. */
    private static void requireOrderedCommits(Connection connection, MySqlSourceConfig config) {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@GLOBAL.binlog_order_commits")) {
            if (rs.next() && !rs.getBoolean(1)) {
                throw unorderedCommits(config);
            }
        } catch (SQLException e) {
            throw MySqlConnections.failure(config, e);
        }
    }

    /**
     * With {@code binlog_order_commits = OFF} Oracle MySQL adds transactions to {@code gtid_executed} out of binlog
     * order: a later transaction of a row can be in it while an earlier one is not, and a chunk's backfill from the
     * GTIDs executed before its snapshot then sets the row to the earlier one's image, older than the chunk's mark
     * (silently: the stream drops the later change as read by the chunk; found by an adversarial probe).
     */
    static CdcException unorderedCommits(MySqlSourceConfig config) {
        return new CdcException(CdcException.Kind.PREREQUISITE, "The Oracle MySQL server at " + config.hostname() + ":"
                + config.port() + " has binlog_order_commits = OFF: it commits transactions out of binlog order, so "
                + "the GTIDs executed before a chunk's snapshot may hold a later change of a row but not an earlier "
                + "one, and the chunk could not be made exact from the binlog. Set it back (SET PERSIST "
                + "binlog_order_commits = ON) before snapshotting, or start the source without a snapshot (startup "
                + "mode 'latest', 'committed' or a binlog position).");
    }

    /**
     * A chunk is exact only in a consistent snapshot, which only InnoDB gives: a MyISAM or Aria table
     * read in one shows writes made after the chunk's mark, so the handoff would drop or repeat them.
     */
    private static void requireInnoDb(Connection connection, MySqlSourceConfig config, TableId table) {
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
            s.setString(1, table.database());
            s.setString(2, table.table());
            try (ResultSet rs = s.executeQuery()) {
                String engine = rs.next() ? rs.getString(1) : null;
                if (engine != null && !"InnoDB".equalsIgnoreCase(engine)) {
                    throw new CdcException(CdcException.Kind.PREREQUISITE, "Table " + table.database() + "."
                            + table.table() + " uses the " + engine + " engine, which has no consistent snapshot: a "
                            + "chunk read while it is written would not match its binlog position, and the "
                            + "snapshot-to-stream handoff would drop or repeat changes. Convert it (ALTER TABLE "
                            + MySqlSql.qualified(table) + " ENGINE = InnoDB), exclude it, or start the source without "
                            + "a snapshot (startup mode 'latest').");
                }
            }
        } catch (SQLException e) {
            throw MySqlConnections.failure(config, e);
        }
    }
}
