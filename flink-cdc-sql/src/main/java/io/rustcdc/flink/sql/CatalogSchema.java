package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.sql.compat.DeclarableTypes;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;
import org.apache.flink.table.types.utils.TypeConversions;

/**
 * A source table's Flink schema, derived from its description as a {@code CREATE TABLE} would be written by
 * hand from the docs: every column the source emits, in its order, with the connector's default type (the one
 * that holds every value exactly), {@code NOT NULL} where the source promises it, and the source's primary key.
 * The table factory checks the result against the live catalogue again when a job is planned.
 */
@Internal
final class CatalogSchema {
    private CatalogSchema() {}

    /**
     * The schema of {@code table}, named {@code flinkName} in messages.
     *
     * @throws CatalogException naming every column no Flink type of this Flink version holds exactly, its
     *     source type and the remedy; the table is then not readable through the catalog
     */
    static Schema derive(TableDescription table, ConnectorTypes types, String flinkName, ClassLoader classLoader) {
        RowShape shape = table.shape();
        RowType rowType = table.rowType();
        Schema.Builder schema = Schema.newBuilder();
        List<String> problems = new ArrayList<>();
        for (RowShape.Column column : shape.columns()) {
            ValueType valueType = rowType.type(rowType.indexOf(column.name()));
            String text = types.defaultType(column, valueType);
            LogicalType type = LogicalTypeParser.parse(text, classLoader).copy(column.nullable());
            // what the planner keeps of the type: the declaration must still hold every value
            LogicalType planned = DeclarableTypes.asPlanned(type);
            String problem = types.problem(column, valueType, planned);
            if (problem != null) {
                String why = DeclarableTypes.limitation(type).map(l -> "its values need " + text + ", and " + l)
                        .orElse(planned + " cannot hold its values exactly (" + problem + ")");
                problems.add("column " + column.name() + " (" + column.dataType() + "): " + why);
            }
            schema.column(column.name(), TypeConversions.fromLogicalToDataType(type));
        }
        if (!problems.isEmpty()) {
            throw new CatalogException("Table " + flinkName + " (source table " + table.table().qualifiedName()
                    + ") cannot be read exactly through the catalog:\n  - " + String.join("\n  - ", problems)
                    + "\nDeclare it with CREATE TABLE without these columns, or leave it out of the catalog with "
                    + "'table.exclude-list'.");
        }
        if (!shape.primaryKey().isEmpty()) {
            schema.primaryKey(shape.primaryKey());
        }
        return schema.build();
    }
}
