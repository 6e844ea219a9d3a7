package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import javax.annotation.Nullable;

/**
 * The failures of a chunk whose table is not the one its chunks were planned on. The table was there
 * when they were planned, so a name that denotes no table now was dropped or renamed away while the
 * snapshot was read; a table replaced (another object_id under the name) is told by the chunk marks,
 * across chunks by the framework, within one chunk's read here. Stateless.
 */
final class SqlServerChunkTables {
    private SqlServerChunkTables() {}

    /** The table is gone: {@code why} says how the chunk found out. */
    static CdcException gone(TableId table, String why, @Nullable Throwable cause) {
        return new CdcException(CdcException.Kind.STATE, "Table " + SqlServerCatalog.name(table) + " was dropped or "
                + "renamed while its snapshot was read (" + why + "): the chunks read so far came from the table that is "
                + "gone, so its snapshot cannot be completed. Start the source without state once the table is back (a "
                + "new snapshot), or take it out of the captured tables; a restore from a checkpoint would go on "
                + "reading the table now under that name.", cause);
    }

    /**
     * The table was replaced between its description and its chunk's read, again on each attempt (or
     * in a chunk of the whole table, whose rows went out as they were read).
     */
    static CdcException replacedWhileRead(TableId table, int described, SqlServerChunkMark mark) {
        return new CdcException(CdcException.Kind.STATE, "Table " + SqlServerCatalog.name(table) + " was replaced "
                + "while a chunk of its snapshot was read (dropped or renamed away, and another table created or "
                + "renamed under its name): it was object_id " + described + " when described and object_id "
                + mark.objectId() + " when read, so the chunk's rows were decoded with another table's columns. "
                + "Start the source without state to snapshot the table again, or leave the table out.");
    }
}
