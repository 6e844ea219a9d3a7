package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.sql.SQLException;
import java.util.function.Function;
import javax.annotation.Nullable;

/**
 * Describes a table inside a chunk's transaction. The table was there when its chunks were planned,
 * so a table the catalogue no longer shows was dropped or renamed while its snapshot was read (or the
 * source's user lost its privilege on it): the chunks read so far came from a table that is gone, and
 * a restore from a checkpoint would go on with whatever the name denotes then.
 */
final class ChunkTables {
    /** ER_NO_SUCH_TABLE's SQLSTATE (1146), on Oracle MySQL and MariaDB alike. */
    private static final String NO_SUCH_TABLE = "42S02";

    private ChunkTables() {}

    /**
     * A statement on the table failed: when the table is gone (dropped or renamed since its chunks were
     * planned), the snapshot's failure; null otherwise.
     */
    @Nullable
    static CdcException gone(TableId table, SQLException e) {
        return NO_SUCH_TABLE.equals(e.getSQLState()) ? gone(table, e.getMessage(), e) : null;
    }

    /** Throws the snapshot's failure ({@link #gone(TableId, SQLException)}) when the table is gone; returns otherwise. */
    static void failIfGone(TableId table, SQLException e) {
        CdcException gone = gone(table, e); // not a connection failure to retry
        if (gone != null) {
            throw gone;
        }
    }

    private static CdcException gone(TableId table, String why, Exception cause) {
        return new CdcException(CdcException.Kind.STATE, "Table " + table.database() + "." + table.table()
                + " was dropped or renamed while its snapshot was read: the chunks read so far came from the "
                + "table that is gone, so its snapshot cannot be completed (" + why + "). Start the "
                + "job without state once the table is back (a new snapshot), or take it out of the captured "
                + "tables; a restore from a checkpoint would go on reading the table now under that name.", cause);
    }

    static Function<TableId, MySqlTable> describing(Function<TableId, MySqlTable> describe) {
        return table -> {
            try {
                return describe.apply(table);
            } catch (CdcException e) {
                if (e.kind() != CdcException.Kind.PREREQUISITE) {
                    throw e;
                }
                throw gone(table, e.getMessage(), e);
            }
        };
    }
}
