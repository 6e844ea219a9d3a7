package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.annotation.Nullable;
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
     * Fails when {@code now} orders {@code keyColumns} otherwise than {@code planned} did, as {@code order} tells
     * ({@link KeyOrder#sameOrder}; a collation {@code planned} does not name is not compared), or lets a key column
     * hold NULL where {@code planned} let none ({@link #madeNullable}).
     *
     * @throws CdcException of kind STATE naming the table, the columns and their orders then and now
     */
    public static void requireSameOrder(KeyOrder order, TableDescription planned, TableDescription now,
            List<String> keyColumns) {
        List<ValueType> types = new ArrayList<>();
        List<String> collations = new ArrayList<>();
        for (String column : keyColumns) {
            int field = planned.rowType().indexOf(column);
            types.add(field < 0 ? null : planned.rowType().type(field));
            collations.add(field < 0 ? null : planned.collation(field));
        }
        List<String> changes = new ArrayList<>(changes(order, now, keyColumns, types, collations));
        if (madeNullable(planned, keyColumns).isEmpty()) {
            changes.addAll(madeNullable(now, keyColumns));
        }
        if (!changes.isEmpty()) {
            throw planned(now.table(), changes);
        }
    }

    /**
     * The key columns {@code now} lets hold NULL, each as "column from NOT NULL to nullable": a table split by a key
     * that held no NULL reads no row whose key became NULL since (no range, {@code > after} or {@code <= upTo}, holds
     * it), and the handoff would place such a row's changes in a chunk that never reads it.
     */
    public static List<String> madeNullable(TableDescription now, List<String> keyColumns) {
        List<String> nullable = new ArrayList<>();
        for (String column : keyColumns) {
            int field = now.rowType().indexOf(column);
            if (field >= 0 && now.shape().columns().get(field).nullable()) {
                nullable.add(column + " from NOT NULL to nullable");
            }
        }
        return nullable;
    }

    /**
     * Fails when {@code now} orders {@code keyColumns} otherwise than {@code types} and {@code collations} (a chunk
     * key's, as planned; a null type: a column the plan did not have) do.
     */
    public static void requireSameOrder(KeyOrder order, TableDescription now, List<String> keyColumns,
            List<ValueType> types, List<String> collations) {
        List<String> changes = changes(order, now, keyColumns, types, collations);
        if (!changes.isEmpty()) {
            throw planned(now.table(), changes);
        }
    }

    /**
     * How {@code now} orders {@code keyColumns} otherwise than {@code types} and {@code collations} do, per changed
     * column "column from old order to new order"; empty when they order alike.
     */
    public static List<String> changes(KeyOrder order, TableDescription now, List<String> keyColumns,
            List<ValueType> types, List<String> collations) {
        RowType rowType = now.rowType();
        List<String> changes = new ArrayList<>();
        for (int i = 0; i < keyColumns.size(); i++) {
            int field = rowType.indexOf(keyColumns.get(i));
            ValueType type = types.get(i);
            String collation = collations.get(i);
            boolean same = field >= 0 && type != null && order.sameOrder(type, collation, rowType.type(field),
                    collation == null ? null : now.collation(field));
            if (!same) {
                changes.add(keyColumns.get(i) + " from " + orderName(type, collation) + " to "
                        + (field < 0 ? "no column" : orderName(rowType.type(field), now.collation(field))));
            }
        }
        return changes;
    }

    private static String orderName(@Nullable ValueType type, @Nullable String collation) {
        return (type == null ? "no column" : type.kind().name().toLowerCase(Locale.ROOT))
                + (collation == null ? "" : " (collation " + collation + ")");
    }

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
