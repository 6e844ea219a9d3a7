package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.TableId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.annotation.Nullable;

/**
 * What a classified schema change means for a declared SQL table: a change that leaves every
 * declared column in place goes on (an added column is not read until declared); a declared column
 * removed, renamed, or gone in a change the source cannot tell apart fails at once, naming the
 * column, its declared type and its source type; a replaced table fails as a dropped one does, and so
 * does a CREATE TABLE of it the source cannot classify (which may have replaced it). A declared
 * column whose type changed fails at once unless the connector knows the change keeps every stored
 * value ({@link ConnectorTypes#keepsValues}: a rounding or truncating change rewrites the rows without
 * a row change in the log); one that keeps them is remembered: the next row checks whether its
 * declared type still holds the new type exactly, and its message names both source types.
 */
final class SchemaChangeCheck {
    private SchemaChangeCheck() {}

    /**
     * Fails when {@code e}'s changes take a declared column away; records each declared column whose
     * type changed in {@code retyped} (name to its type before).
     */
    static void check(TableId table, @Nullable String flinkTable, DeclaredColumns columns, ChangeEvent e,
            Map<String, String> retyped) {
        List<String> problems = new ArrayList<>();
        for (ShapeChange c : e.shapeChanges()) {
            switch (c.kind()) {
                case TABLE_REPLACED:
                    throw replaced(table, flinkTable, "was replaced at the source (" + c.reason() + ")");
                case COLUMN_REMOVED:
                    declared(columns, c.before().get(0)).ifPresent(d -> problems.add("column " + c.before().get(0).name()
                            + " (declared " + d + ", source type " + c.before().get(0).dataType() + ") was removed"));
                    break;
                case COLUMN_RENAMED:
                    declared(columns, c.before().get(0)).ifPresent(d -> problems.add("column " + c.before().get(0).name()
                            + " (declared " + d + ", source type " + c.before().get(0).dataType() + ") was renamed to "
                            + c.after().get(0).name() + "; declare that name"));
                    break;
                case UNKNOWN:
                    if (SchemaChangeRows.ddlType(e.after()) == DdlType.CREATE_TABLE) {
                        // MariaDB's CREATE OR REPLACE TABLE (or CREATE TABLE IF NOT EXISTS) of a table the source
                        // held no shape of: a replacement the source cannot tell from a creation or a no-op
                        throw replaced(table, flinkTable, "may have been replaced at the source by a CREATE TABLE the "
                                + "source cannot classify (" + c.reason() + ")");
                    }
                    for (RowShape.Column gone : c.before()) {
                        if (c.after().stream().noneMatch(a -> a.name().equals(gone.name()))) {
                            declared(columns, gone).ifPresent(d -> problems.add("column " + gone.name() + " (declared "
                                    + d + ", source type " + gone.dataType() + ") is gone in a change the source cannot "
                                    + "tell apart: " + c.describe()));
                        }
                    }
                    break;
                case COLUMN_TYPE_CHANGED:
                    RowShape.Column was = c.before().get(0);
                    String now = c.after().get(0).dataType();
                    declared(columns, was).ifPresent(d -> {
                        if (!columns.connector.keepsValues(was.dataType(), now)) {
                            // e.g. numeric(10,2) to numeric(10,1): the stored values were rounded, with no row change
                            problems.add("column " + was.name() + " (declared " + d + ") changed its source type from "
                                    + was.dataType() + " to " + now + ", which may have rewritten its stored values "
                                    + "(rounded, truncated, padded or converted) without a row change the source could "
                                    + "read: rows downstream may hold values the table no longer has; a new snapshot "
                                    + "reads them as they are now");
                        }
                        retyped.put(was.name(), was.dataType());
                    });
                    break;
                default:
                    break;
            }
        }
        if (!problems.isEmpty()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "The table declared for " + table.qualifiedName()
                    + " does not fit the source any more (at " + e.source().position()
                    + (flinkTable == null ? "" : ", read by Flink table " + flinkTable) + "):\n  - "
                    + String.join("\n  - ", problems) + "\nChange the declaration (or the source table back) and "
                    + "restart the job without state, or remove the column from the declaration.");
        }
    }

    private static CdcException replaced(TableId table, @Nullable String flinkTable, String what) {
        return new CdcException(CdcException.Kind.DECODE, "Table " + table.qualifiedName()
                + (flinkTable == null ? "" : " (read by Flink table " + flinkTable + ")") + " " + what + "; the rows "
                + "of the table it replaced are not retracted, so its changelog cannot continue. Restart the job "
                + "without state to read the new table anew, or remove the table from the job.");
    }

    /** Words naming the source types declared columns had before their type changed; empty when none. */
    static String typesBefore(Map<String, String> retyped) {
        return retyped.isEmpty() ? "" : "; before the change at the source, " + retyped.entrySet().stream()
                .map(t -> "column " + t.getKey() + " was " + t.getValue()).collect(Collectors.joining(", "));
    }

    private static java.util.Optional<String> declared(DeclaredColumns columns, @Nullable RowShape.Column column) {
        int i = column == null ? -1 : columns.names.indexOf(column.name());
        return i < 0 ? java.util.Optional.empty() : java.util.Optional.of(columns.types.get(i).toString());
    }
}
