package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A table as the catalogue describes it: its shape (columns as declared, nullability, primary
 * key), the value types its rows decode to, in the same column order, and for each column the
 * collation that orders its values where the connector names one (for its {@link KeyOrder}).
 * Immutable.
 */
@PublicEvolving
public final class TableDescription implements Serializable {
    private static final long serialVersionUID = 1L;

    private final TableId table;
    private final RowShape shape;
    private final RowType rowType;
    /** Per column, in column order; null entries for columns without one. */
    private final List<String> collations;

    private TableDescription(TableId table, RowShape shape, RowType rowType, List<String> collations) {
        this.table = Objects.requireNonNull(table, "table");
        this.shape = Objects.requireNonNull(shape, "shape");
        this.rowType = Objects.requireNonNull(rowType, "rowType");
        if (!rowType.names().equals(shape.columns().stream().map(RowShape.Column::name).collect(Collectors.toList()))) {
            throw new IllegalArgumentException("Row type " + rowType + " does not follow the columns of " + shape);
        }
        if (collations.size() != rowType.size()) {
            throw new IllegalArgumentException(collations.size() + " collations for the " + rowType.size()
                    + " columns of " + table);
        }
        this.collations = Collections.unmodifiableList(new ArrayList<>(collations));
    }

    /** A table whose columns name no collation. */
    public static TableDescription of(TableId table, RowShape shape, RowType rowType) {
        return new TableDescription(table, shape, rowType, Collections.nCopies(rowType.size(), null));
    }

    /**
     * A table whose columns' values are ordered by {@code collations} (one per column, in column
     * order, null for a column without one): names the connector chooses, which its {@link KeyOrder}
     * reads and messages show.
     */
    public static TableDescription of(TableId table, RowShape shape, RowType rowType, List<String> collations) {
        return new TableDescription(table, shape, rowType, collations);
    }

    public TableId table() {
        return table;
    }

    public RowShape shape() {
        return shape;
    }

    public RowType rowType() {
        return rowType;
    }

    /** The collation of column {@code field} (as in {@link #rowType()}); null when it has none. */
    @Nullable
    public String collation(int field) {
        return collations.get(field);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TableDescription)) {
            return false;
        }
        TableDescription d = (TableDescription) o;
        return table.equals(d.table) && shape.equals(d.shape) && rowType.equals(d.rowType)
                && collations.equals(d.collations);
    }

    @Override
    public int hashCode() {
        return Objects.hash(table, shape, rowType);
    }

    @Override
    public String toString() {
        return "TableDescription{" + table + " " + shape.id() + "}";
    }
}
