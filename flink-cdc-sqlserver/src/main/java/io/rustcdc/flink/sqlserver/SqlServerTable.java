package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.sqlserver.types.SqlServerColumn;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import javax.annotation.Nullable;

/**
 * A table's (or a capture instance's) columns as described, with its {@link TableDescription} and the
 * table's {@code object_id}. Immutable.
 */
final class SqlServerTable {
    final TableDescription description;
    /** The {@code object_id} of the table (of a capture instance's: its source table's) when it was described. */
    final int objectId;
    final List<SqlServerColumn> columns;

    SqlServerTable(TableId table, int objectId, List<SqlServerColumn> columns, List<String> primaryKey,
            List<String> collations) {
        this.objectId = objectId;
        this.columns = List.copyOf(columns);
        List<RowShape.Column> shape = new ArrayList<>();
        for (SqlServerColumn c : columns) {
            shape.add(RowShape.Column.of(c.name(), c.dataType(), c.nullable()));
        }
        this.description = TableDescription.of(table, RowShape.of(table.schema(), table.table(), shape, primaryKey),
                RowType.of(columns.stream().map(SqlServerColumn::name).collect(Collectors.toList()),
                        columns.stream().map(SqlServerColumn::valueType).collect(Collectors.toList())),
                collations);
    }

    SqlServerColumn column(String name) {
        SqlServerColumn c = find(name);
        if (c == null) {
            throw new IllegalArgumentException("Table " + description.table() + " has no column " + name);
        }
        return c;
    }

    @Nullable
    SqlServerColumn find(String name) {
        for (SqlServerColumn c : columns) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        return null;
    }

    List<SqlServerColumn> columns(List<String> names) {
        return names.stream().map(this::column).collect(Collectors.toList());
    }

    /** The select list of every column, as {@link SqlServerColumn#select} reads it. */
    String selectList() {
        return selectList("");
    }

    /** The select list of every column of the table or function named {@code qualifier} (with its dot). */
    String selectList(String qualifier) {
        return columns.stream().map(c -> c.select(qualifier + SqlServerSql.quote(c.name())))
                .collect(Collectors.joining(", "));
    }
}
