package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The first statement of a chunk's transaction: the table's ACCESS SHARE lock, taken before the
 * transaction's snapshot ({@code LOCK TABLE} takes none), so that no DDL (every {@code ALTER TABLE}
 * that changes columns, {@code DROP}, {@code TRUNCATE} and a rename take ACCESS EXCLUSIVE) commits
 * between the chunk's snapshot and its read. Without it a statement holding the table when the chunk
 * starts commits while the chunk's {@code COPY} waits, and the {@code COPY} then reads the table
 * through a snapshot older than the statement: after a rewriting {@code ALTER} (a type change) the
 * table looks empty to it, and the chunk's rows are silently lost ({@code PostgresSnapshotDdlITCase}).
 * With it a DDL statement waits for the chunk's end, or the chunk waits for the statement's.
 *
 * <p>{@code ONLY}: a partitioned table's lock is the root's, which every DDL on the table takes too;
 * locking each partition as well would ask privileges on each, which reading the root does not.
 */
final class PgChunkLock {
    private static final String UNDEFINED_TABLE = "42P01";

    private PgChunkLock() {}

    /** @throws CdcException of kind STATE when the table is gone (dropped or renamed since it was planned) */
    static void take(Connection connection, TableId table) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("LOCK TABLE ONLY " + PgPrerequisites.qualified(table) + " IN ACCESS SHARE MODE");
        } catch (SQLException e) {
            if (UNDEFINED_TABLE.equals(e.getSQLState())) {
                throw gone(table, e);
            }
            throw e;
        }
    }

    static CdcException gone(TableId table, SQLException cause) {
        return new CdcException(CdcException.Kind.STATE, "Table " + table.qualifiedName() + " was dropped or renamed "
                + "while its snapshot was read: the chunks read so far came from the table that is gone, so its "
                + "snapshot cannot be completed (" + cause.getMessage() + "). Start the job without state once the "
                + "table is back (a new snapshot), or take it out of the captured tables; a restore from a "
                + "checkpoint would go on reading the table now under that name.", cause);
    }
}
