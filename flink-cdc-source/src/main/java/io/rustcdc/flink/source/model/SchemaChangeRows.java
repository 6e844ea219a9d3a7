package io.rustcdc.flink.source.model;

import java.util.List;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The {@code after} row of a {@link Op#SCHEMA_CHANGE} event: the kind of change ({@code
 * CREATE_TABLE}, {@code ALTER_TABLE}, {@code DROP_TABLE}), the table, and the statement where the
 * source has one. The event's shape is the one the change leaves, where known.
 */
@PublicEvolving
public final class SchemaChangeRows {
    public static final RowType TYPE = RowType.of(List.of("ddl_type", "schema", "table", "statement"),
            List.of(ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT),
                    ValueType.of(ValueKind.TEXT)));

    private SchemaChangeRows() {}

    public static Row of(TableId table, String ddlType, @Nullable String statement) {
        return Row.of(TYPE, ddlType, table.schema(), table.table(), statement);
    }
}
