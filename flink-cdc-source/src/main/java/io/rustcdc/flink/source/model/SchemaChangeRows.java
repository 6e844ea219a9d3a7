package io.rustcdc.flink.source.model;

import java.util.List;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The {@code after} row of a {@link Op#SCHEMA_CHANGE} event: the kind of change (a {@link DdlType}'s
 * name: {@code CREATE_TABLE}, {@code ALTER_TABLE}, {@code DROP_TABLE}), the table, and the statement
 * where the source has one. The event's shape is the one the change leaves, where known. Code reads
 * the kind with {@link #ddlType}, never by comparing text.
 *
 * <pre>{@code
 * Row after = SchemaChangeRows.of(table, DdlType.ALTER_TABLE, "ALTER TABLE t ADD c int");
 * if (SchemaChangeRows.ddlType(event.after()) == DdlType.DROP_TABLE) { ... }
 * }</pre>
 */
@PublicEvolving
public final class SchemaChangeRows {
    public static final RowType TYPE = RowType.of(List.of("ddl_type", "schema", "table", "statement"),
            List.of(ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT),
                    ValueType.of(ValueKind.TEXT)));

    private SchemaChangeRows() {}

    public static Row of(TableId table, DdlType ddlType, @Nullable String statement) {
        return Row.of(TYPE, ddlType.name(), table.schema(), table.table(), statement);
    }

    /**
     * The kind of change the {@code after} row of a schema change event records; null when there is
     * no row or it names none.
     *
     * @throws IllegalArgumentException when the row names a kind this release does not know
     */
    @Nullable
    public static DdlType ddlType(@Nullable Row after) {
        Object text = after == null || after.type().indexOf("ddl_type") < 0 ? null : after.get("ddl_type");
        if (text == null) {
            return null;
        }
        try {
            return DdlType.valueOf((String) text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("A schema change event names the change '" + text + "', which is none of "
                    + java.util.Arrays.toString(DdlType.values()), e);
        }
    }
}
