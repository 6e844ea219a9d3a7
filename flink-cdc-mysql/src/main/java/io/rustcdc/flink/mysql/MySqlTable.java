package io.rustcdc.flink.mysql;

import io.rustcdc.flink.mysql.types.MySqlColumn;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.TableDescription;
import java.util.List;
import java.util.stream.Collectors;

/** A table as the catalogue describes it: its description for the framework and how its columns decode. */
final class MySqlTable {
    final TableDescription description;
    final List<MySqlColumn> columns;

    /** @param collations per column, as {@link MySqlKeyOrder#collationName} names them (null entries where none) */
    MySqlTable(TableId id, io.rustcdc.flink.source.model.RowShape shape, List<MySqlColumn> columns,
            List<String> collations) {
        this.columns = List.copyOf(columns);
        List<ValueType> types = columns.stream().map(MySqlColumn::valueType).collect(Collectors.toList());
        List<String> names = columns.stream().map(MySqlColumn::name).collect(Collectors.toList());
        this.description = TableDescription.of(id, shape, RowType.of(names, types), collations);
    }

    MySqlColumn column(String name) {
        return columns.get(description.rowType().indexOf(name));
    }
}
