package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * The failures of a snapshot whose chunk key changed its order (a key column's type or collation altered) while
 * the table's chunks were planned or read: the chunks' ranges, planned in one order and read in another, would
 * leave rows out or read them twice. Only a snapshot started again (without the job's state, which keeps the
 * chunks already read) reads the table in one order.
 */
@Internal
public final class ChunkKeyChanges {
    private static final String REMEDY = "Start the job without its state so that the table is snapshotted again in "
            + "the new order (a restore from a checkpoint would keep the chunks already read).";

    private ChunkKeyChanges() {}

    /**
     * A chunk end planned in another order than the table's earlier ones.
     *
     * @param changes per changed key column, "column from old order to new order"
     */
    public static CdcException planned(TableId table, List<String> changes) {
        return new CdcException(CdcException.Kind.STATE, "The chunk key of table " + table.qualifiedName()
                + " changed while its snapshot was read (" + String.join(", ", changes) + "): its chunks were "
                + "planned in the key's old order, and read in the new one they would leave rows out or read them "
                + "twice. " + REMEDY);
    }

    /**
     * A chunk whose bounds, planned in the key's order then, are out of order in the key's order now.
     *
     * @param orderNow the key columns' collations (or types) now, as the failure names them
     */
    public static CdcException unorderedBounds(TableId table, List<String> keyColumns, String orderNow) {
        return new CdcException(CdcException.Kind.STATE, "The chunk key " + keyColumns + " of table "
                + table.qualifiedName() + " orders a chunk's bounds otherwise than when they were planned (its "
                + "collation, now " + orderNow + ", changed while the table was snapshotted): read in the new order "
                + "the chunks would leave rows out or read them twice. " + REMEDY);
    }
}
