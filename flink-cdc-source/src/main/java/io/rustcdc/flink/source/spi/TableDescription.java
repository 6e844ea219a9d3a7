package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import java.io.Serializable;
import java.util.stream.Collectors;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A table as the catalogue describes it: its shape (columns as declared, nullability, primary
 * key) and the value types its rows decode to, in the same column order. Immutable.
 */
@PublicEvolving
public final class TableDescription implements Serializable {
    private static final long serialVersionUID = 1L;

    private final TableId table;
    private final RowShape shape;
    private final RowType rowType;

    private TableDescription(TableId table, RowShape shape, RowType rowType) {
        this.table = Objects.requireNonNull(table, "table");
        this.shape = Objects.requireNonNull(shape, "shape");
        this.rowType = Objects.requireNonNull(rowType, "rowType");
        if (!rowType.names().equals(shape.columns().stream().map(RowShape.Column::name).collect(Collectors.toList()))) {
            throw new IllegalArgumentException("Row type " + rowType + " does not follow the columns of " + shape);
        }
    }

    public static TableDescription of(TableId table, RowShape shape, RowType rowType) {
        return new TableDescription(table, shape, rowType);
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

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TableDescription)) {
            return false;
        }
        TableDescription d = (TableDescription) o;
        return table.equals(d.table) && shape.equals(d.shape) && rowType.equals(d.rowType);
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
