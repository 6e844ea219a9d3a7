package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.KeyOrder;
import io.rustcdc.flink.source.spi.TableDescription;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * The columns that split a table into chunks (its primary key, or a configured column), the
 * database's order of their values (its connector's {@link KeyOrder}) and whether the table may be
 * split at all: only when that order {@linkplain KeyOrder#orders orders} every key column's type.
 * A table that may not be split is read as one chunk, still streamed in bounded memory. Immutable.
 */
@Internal
public final class ChunkKey implements Serializable {
    private static final long serialVersionUID = 1L;

    private final List<String> columns;
    private final List<ValueType> types;
    private final KeyOrder order;
    private final boolean splittable;

    private ChunkKey(List<String> columns, List<ValueType> types, KeyOrder order) {
        this.columns = List.copyOf(columns);
        this.types = List.copyOf(types);
        this.order = Objects.requireNonNull(order, "order");
        this.splittable = order.orders(this.types);
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
        for (String c : columns) {
            int i = rowType.indexOf(c);
            if (i < 0) {
                throw new CdcException(CdcException.Kind.CONFIGURATION, "Option '" + optionName + "' names column " + c
                        + " of table " + table.table().qualifiedName() + ", which has no such column; it has "
                        + rowType.names());
            }
            types.add(rowType.type(i));
        }
        return new ChunkKey(columns, types, order);
    }

    /** A key read back from state, ordered by its connector's {@code order}. */
    public static ChunkKey restored(List<String> columns, List<ValueType> types, KeyOrder order) {
        return new ChunkKey(columns, types, order);
    }

    public List<String> columns() {
        return columns;
    }

    public List<ValueType> types() {
        return types;
    }

    public KeyOrder order() {
        return order;
    }

    /** Compares two keys of these columns as the database orders them. */
    public int compare(Object[] a, Object[] b) {
        return order.compare(types, a, b);
    }

    /** Whether the table may be read in more than one chunk. */
    public boolean splittable() {
        return splittable;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChunkKey && ((ChunkKey) o).columns.equals(columns) && ((ChunkKey) o).types.equals(types)
                && ((ChunkKey) o).order.equals(order);
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
