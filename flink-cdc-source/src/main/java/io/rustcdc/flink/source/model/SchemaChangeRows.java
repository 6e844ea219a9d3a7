package io.rustcdc.flink.source.model;

import java.util.List;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The {@code after} row of a {@link Op#SCHEMA_CHANGE} event: the kind of change (a {@link DdlType}'s
 * name: {@code CREATE_TABLE}, {@code ALTER_TABLE}, {@code DROP_TABLE}), the table, the statement
 * where the source has one, and {@code history_version}: the version the source's schema history
 * recorded the change under (null when it recorded nothing: a creation or alteration whose resulting
 * shape is unknown). The source sets the version when it emits the event; a connector's own events
 * have none. The event's shape is the one the change leaves, where known. Code reads the kind with
 * {@link #ddlType} and the version with {@link #historyVersion}, never by comparing text.
 *
 * <pre>{@code
 * Row after = SchemaChangeRows.of(table, DdlType.ALTER_TABLE, "ALTER TABLE t ADD c int");
 * if (SchemaChangeRows.ddlType(event.after()) == DdlType.DROP_TABLE) { ... }
 * Long version = SchemaChangeRows.historyVersion(event.after());
 * }</pre>
 */
@PublicEvolving
public final class SchemaChangeRows {
    public static final RowType TYPE = RowType.of(List.of("ddl_type", "schema", "table", "statement",
                    "history_version"),
            List.of(ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT),
                    ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.BIGINT)));

    private SchemaChangeRows() {}

    /** A schema change row without a history version (the source adds it when it emits the event). */
    public static Row of(TableId table, DdlType ddlType, @Nullable String statement) {
        return Row.of(TYPE, ddlType.name(), table.schema(), table.table(), statement, null);
    }

    /**
     * The version the source's schema history recorded this change under; null when the row has none
     * (the source recorded nothing, or the row was not emitted by a source).
     */
    @Nullable
    public static Long historyVersion(@Nullable Row after) {
        return after == null || after.type().indexOf("history_version") < 0 ? null
                : (Long) after.get("history_version");
    }

    /** {@code event}, a schema change event, with its {@code after} row carrying {@code version}. */
    public static ChangeEvent withHistoryVersion(ChangeEvent event, long version) {
        Row after = event.after();
        if (event.op() != Op.SCHEMA_CHANGE || after == null) {
            throw new IllegalArgumentException("Only a schema change event with its row carries a history version, "
                    + "not " + event);
        }
        Row versioned = Row.of(TYPE, field(after, "ddl_type"), field(after, "schema"), field(after, "table"),
                field(after, "statement"), version);
        return ChangeEvent.builder(event.op(), event.table(), event.source()).before(event.before()).after(versioned)
                .shape(event.shape()).transaction(event.transaction()).shapeChanges(event.shapeChanges()).build();
    }

    @Nullable
    private static Object field(Row row, String name) {
        return row.type().indexOf(name) < 0 ? null : row.get(name);
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
