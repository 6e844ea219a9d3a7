package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueType;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.annotation.Nullable;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * The physical columns a {@code CREATE TABLE} declares, checked against the source table's shape:
 * every declared column must exist at the source, with a type that holds its values exactly and no
 * NOT NULL the source does not promise; a declared primary key must be the source's. All problems
 * go into one message. A source column the table does not declare is fine: it is not read.
 */
final class DeclaredColumns implements Serializable {
    private static final long serialVersionUID = 1L;

    final List<String> names;
    final List<LogicalType> types;
    final List<String> primaryKey;
    /** The connector's types, which decide whether a declared type holds a source column's values. */
    final ConnectorTypes connector;

    DeclaredColumns(List<String> names, List<LogicalType> types, List<String> primaryKey, ConnectorTypes connector) {
        this.names = List.copyOf(names);
        this.types = List.copyOf(types);
        this.primaryKey = List.copyOf(primaryKey);
        this.connector = connector;
    }

    /**
     * The problems of these columns against {@code shape}, whose values have {@code rowType} (null when
     * unknown: then types are not checked); empty when none.
     */
    List<String> problems(TableId table, RowShape shape, @Nullable RowType rowType) {
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            LogicalType declared = types.get(i);
            Optional<RowShape.Column> source = shape.column(name);
            if (source.isEmpty()) {
                problems.add("column " + name + " " + declared + " does not exist in the source table (it has "
                        + shape.columns().stream().map(RowShape.Column::name).collect(Collectors.toList()) + ")");
                continue;
            }
            ValueType valueType = rowType == null || rowType.indexOf(name) < 0 ? null : rowType.type(rowType.indexOf(name));
            String problem = valueType == null ? null : connector.problem(source.get(), valueType, declared);
            if (problem != null) {
                problems.add("column " + name + ": declared " + declared + " cannot hold the source type "
                        + source.get().dataType() + " exactly; " + problem + " (the default mapping is "
                        + connector.defaultType(source.get(), valueType) + ")");
            }
            if (!declared.isNullable() && source.get().nullable()) {
                problems.add("column " + name + " is declared NOT NULL, but the source column " + source.get().dataType()
                        + " is nullable");
            }
        }
        // a key is a set of columns: declared in another order it is the same key
        if (!primaryKey.isEmpty() && (primaryKey.size() != shape.primaryKey().size()
                || !shape.primaryKey().containsAll(primaryKey))) {
            problems.add("the declared PRIMARY KEY " + primaryKey + " differs from the source's " + shape.primaryKey());
        }
        return problems;
    }

    /** Fails with every problem of these columns against {@code shape}, in one message. */
    void check(TableId table, RowShape shape, @Nullable RowType rowType, String when) {
        List<String> problems = problems(table, shape, rowType);
        if (!problems.isEmpty()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "The table declared for " + table.qualifiedName()
                    + " does not fit the source " + when + ":\n  - " + String.join("\n  - ", problems));
        }
    }
}
