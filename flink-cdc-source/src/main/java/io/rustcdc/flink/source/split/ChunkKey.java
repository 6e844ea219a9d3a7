package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.ChunkKeyChanges;
import io.rustcdc.flink.source.spi.KeyOrder;
import io.rustcdc.flink.source.spi.TableDescription;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The columns that split a table into chunks (its primary key, or a configured column), their
 * collations where the connector names them, the database's order of their values (its connector's
 * {@link KeyOrder}) and whether the table may be split at all: only when that order {@linkplain
 * KeyOrder#orders orders} every key column's type with its collation and no key column is nullable
 * (a row whose key is NULL lies in no key range: {@code key > ?} and {@code key <= ?} are never true
 * for it). A column the order cannot compare but the database places among chunk bounds ({@link
 * KeyOrder#placedByServer}, text of a linguistic collation) is split too: {@link #placedByServer} is then
 * true, and the handoff asks the database which chunk holds a changed key instead of {@link #compare}. A
 * table that may not be split is read as one chunk, still streamed in bounded memory. Immutable.
 */
@Internal
public final class ChunkKey implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ChunkKey.class);

    private final List<String> columns;
    private final List<ValueType> types;
    /** Per key column; null entries for columns without a collation. */
    private final List<String> collations;
    private final KeyOrder order;
    private final boolean nullable;
    private final boolean splittable;
    private final boolean placedByServer;

    private ChunkKey(List<String> columns, List<ValueType> types, List<String> collations, KeyOrder order,
            boolean nullable) {
        this.columns = List.copyOf(columns);
        this.types = List.copyOf(types);
        if (collations.size() != this.columns.size()) {
            throw new IllegalArgumentException(collations.size() + " collations for key " + columns);
        }
        this.collations = Collections.unmodifiableList(new ArrayList<>(collations));
        this.order = Objects.requireNonNull(order, "order");
        this.nullable = nullable;
        boolean ordered = order.orders(this.types, this.collations);
        this.splittable = !nullable && (ordered || placeable(order, this.types, this.collations));
        this.placedByServer = splittable && !ordered;
    }

    /**
     * Refuses a configured chunk key column of a table with a primary key that is not a column of that key, for a
     * source that streams: a row whose chunk key changes moves to another chunk, so the changelog could hold the row
     * read from its new chunk before the stream's retraction of its old version, which a consumer keyed by the primary
     * key would apply to the new one. With the chunk key in the primary key, a row that moves changes its key.
     *
     * @throws CdcException of kind CONFIGURATION naming the table, the column, the key and the remedy
     */
    public static void requireInPrimaryKey(TableDescription table, @Nullable String configuredColumn, String optionName) {
        List<String> primaryKey = table.shape().primaryKey();
        if (configuredColumn != null && !primaryKey.isEmpty() && !primaryKey.contains(configuredColumn)) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Option '" + optionName + "' names column "
                    + configuredColumn + " of table " + table.table().qualifiedName() + ", which is not in its primary key "
                    + primaryKey + ": a row whose " + configuredColumn + " changes while the snapshot runs moves to "
                    + "another chunk, so the changelog could hold the row read from its new chunk before the retraction "
                    + "of its old version, and a consumer keyed by the primary key would lose the row. Name a column of "
                    + "the primary key, or leave the table out of the option (it is then split by its primary key).");
        }
    }

    /** Whether each column is ordered by {@code order} or placed by the database. */
    private static boolean placeable(KeyOrder order, List<ValueType> types, List<String> collations) {
        for (int i = 0; i < types.size(); i++) {
            if (!order.orders(types.get(i), collations.get(i)) && !order.placedByServer(types.get(i), collations.get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The chunk key of {@code table}: {@code configuredColumn} when given, else the primary key,
     * ordered as {@code order} (the connector's) orders it.
     *
     * @throws CdcException of kind CONFIGURATION when the table has no primary key and no column is
     *     configured, or the configured column does not exist
     */
    public static ChunkKey of(TableDescription table, KeyOrder order, @Nullable String configuredColumn,
            String optionName) {
        RowType rowType = table.rowType();
        List<String> columns = configuredColumn != null ? List.of(configuredColumn) : table.shape().primaryKey();
        if (columns.isEmpty()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Table " + table.table().qualifiedName()
                    + " has no primary key, so the snapshot cannot tell its rows apart or split it. Name a column whose "
                    + "values are unique and not null with the option '" + optionName + "' (e.g. "
                    + table.table().qualifiedName() + ":" + rowType.name(0) + "), or add a primary key.");
        }
        List<ValueType> types = new ArrayList<>();
        List<String> collations = new ArrayList<>();
        boolean nullable = false;
        for (String c : columns) {
            int i = rowType.indexOf(c);
            if (i < 0) {
                throw new CdcException(CdcException.Kind.CONFIGURATION, "Option '" + optionName + "' names column " + c
                        + " of table " + table.table().qualifiedName() + ", which has no such column; it has "
                        + rowType.names());
            }
            types.add(rowType.type(i));
            collations.add(table.collation(i));
            nullable |= table.shape().columns().get(i).nullable();
        }
        if (nullable && placeable(order, types, collations)) {
            LOG.warn("Table {} is read as one chunk: its chunk key column {} is nullable, and rows whose key is NULL "
                    + "lie in no key range (in a table without a primary key, where the connector completes a chunk "
                    + "from the database's log, a change of such a row while the chunk is read fails the source). "
                    + "Declare the column NOT NULL, or name a NOT NULL column with '{}', to read the table in "
                    + "parallel chunks.",
                    table.table().qualifiedName(), columns, optionName);
        }
        for (int i = 0; i < columns.size(); i++) {
            if (!order.orders(types.get(i), collations.get(i)) && !nullable
                    && order.placedByServer(types.get(i), collations.get(i))) {
                LOG.info("Table {} is split into chunks by the database's order of its chunk key column {} (collation "
                        + "{}), which the source does not reproduce: while the stream hands off from its snapshot, it asks "
                        + "the database which chunk holds the changed keys, one query per batch of changes of the table.",
                        table.table().qualifiedName(), columns.get(i), collations.get(i));
                break;
            }
            if (!order.orders(types.get(i), collations.get(i)) && !order.placedByServer(types.get(i), collations.get(i))) {
                LOG.warn("Table {} is read as one chunk (in one task, its rows streamed): the source cannot compare "
                        + "values of its chunk key column {} (type {}{}) as the database orders them, so it cannot "
                        + "tell which chunk a changed key falls into. To read it in parallel chunks, name a key column "
                        + "of an ordered type with '{}', or give the column a collation the connector orders (see the "
                        + "connector's documentation on snapshots).", table.table().qualifiedName(), columns.get(i),
                        table.shape().columns().get(rowType.indexOf(columns.get(i))).dataType(),
                        collations.get(i) == null ? "" : ", collation " + collations.get(i), optionName);
                break;
            }
        }
        return new ChunkKey(columns, types, collations, order, nullable);
    }

    /**
     * A key read back from state, ordered by its connector's {@code order}; {@code collations} and
     * {@code nullable} as {@link #collations} and {@link #nullable}.
     */
    public static ChunkKey restored(List<String> columns, List<ValueType> types, List<String> collations,
            KeyOrder order, boolean nullable) {
        return new ChunkKey(columns, types, collations, order, nullable);
    }

    /** A key read back from state written before collations were kept (split format 4): none. */
    public static ChunkKey restored(List<String> columns, List<ValueType> types, KeyOrder order, boolean nullable) {
        return new ChunkKey(columns, types, Collections.nCopies(columns.size(), null), order, nullable);
    }

    /** A key read back from state written before nullability was kept (split format 1): split as before. */
    public static ChunkKey restored(List<String> columns, List<ValueType> types, KeyOrder order) {
        return restored(columns, types, order, false);
    }

    /**
     * Fails when {@code table}, as a reader describes it to read one of its chunks, orders these columns otherwise
     * than when the chunks were planned: a key column's type or collation changed since (or the column is gone), so
     * that the chunk's bounds, planned in the old order, and the handoff, which places changed keys by it, would not
     * match the rows the chunk reads. Compared as the key's order tells ({@link KeyOrder#sameOrder}: by default the
     * kind of value, an integer's width aside, and the collation); a collation the plan does not name (none, or a plan
     * from state written before collations were kept) is not compared. A key column made nullable since fails too
     * ({@link ChunkKeyChanges#madeNullable}: its chunks' ranges would leave out the rows whose key became NULL). The
     * connector checks that the chunk's read orders as {@code table} does.
     *
     * @throws CdcException of kind STATE naming the table, the columns and their orders then and now
     */
    public void requireOrderOf(TableDescription table) {
        List<String> changes = new ArrayList<>(ChunkKeyChanges.changes(order, table, columns, types, collations));
        if (!nullable) {
            changes.addAll(ChunkKeyChanges.madeNullable(table, columns));
        }
        if (!changes.isEmpty()) {
            throw ChunkKeyChanges.planned(table.table(), changes);
        }
    }

    /**
     * How {@code now} would give another key than this one, or null when it gives this one: the chunk key as {@link #of}
     * takes it ({@code configuredColumn}, else the primary key) has other columns, other nullability, or orders them
     * otherwise ({@link KeyOrder#sameOrder}; a collation this key does not name is not compared).
     */
    @Nullable
    public String changeIn(TableDescription now, @Nullable String configuredColumn) {
        List<String> columnsNow = configuredColumn != null ? List.of(configuredColumn) : now.shape().primaryKey();
        if (!columnsNow.equals(columns)) {
            return "columns " + columns + " to " + columnsNow;
        }
        boolean nullableNow = !ChunkKeyChanges.madeNullable(now, columns).isEmpty();
        if (nullableNow != nullable) {
            return nullableNow ? "a key column made nullable" : "its key columns made NOT NULL";
        }
        List<String> changes = ChunkKeyChanges.changes(order, now, columns, types, collations);
        return changes.isEmpty() ? null : String.join(", ", changes);
    }

    /** Whether a key column may hold NULL, which keeps the table in one chunk. */
    public boolean nullable() {
        return nullable;
    }

    public List<String> columns() {
        return columns;
    }

    public List<ValueType> types() {
        return types;
    }

    /** The collation of each key column, as the connector names it; null entries for columns without one. */
    public List<String> collations() {
        return collations;
    }

    public KeyOrder order() {
        return order;
    }

    /**
     * Whether the table is split though its order does not {@linkplain #compare compare} its keys: the
     * database places them among chunk bounds ({@link io.rustcdc.flink.source.spi.CatalogSession#placeKeys}).
     */
    public boolean placedByServer() {
        return placedByServer;
    }

    /**
     * Compares two keys of these columns as the database orders them.
     *
     * @throws IllegalArgumentException when the key is {@linkplain #placedByServer placed by the database}
     */
    public int compare(Object[] a, Object[] b) {
        return order.compare(types, collations, a, b);
    }

    /** Whether the table may be read in more than one chunk. */
    public boolean splittable() {
        return splittable;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChunkKey && ((ChunkKey) o).columns.equals(columns) && ((ChunkKey) o).types.equals(types)
                && ((ChunkKey) o).collations.equals(collations) && ((ChunkKey) o).order.equals(order)
                && ((ChunkKey) o).nullable == nullable;
    }

    @Override
    public int hashCode() {
        return Objects.hash(columns, types);
    }

    @Override
    public String toString() {
        return columns + (splittable ? "" : " (one chunk)");
    }
}
