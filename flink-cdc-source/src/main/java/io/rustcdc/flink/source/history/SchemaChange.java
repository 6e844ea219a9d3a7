package io.rustcdc.flink.source.history;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.TableId;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * What one schema-history entry records: a captured DDL statement (with the shape it leaves and
 * or the diff it applies), or the shape rows of a table were seen with. Immutable.
 *
 * <pre>{@code
 * SchemaChange.alter(table, "ALTER TABLE t ADD COLUMN c int", List.of(ColumnChange.add(column)), when);
 * }</pre>
 */
@PublicEvolving
public final class SchemaChange implements Serializable {
    private static final long serialVersionUID = 1L;

    /** What kind of entry this is. */
    public enum Kind {
        CREATE_TABLE,
        ALTER_TABLE,
        DROP_TABLE,
        /** The shape a table's rows carried; not a statement. */
        ROW_SHAPE
    }

    private final Kind kind;
    private final TableId table;
    @Nullable private final String statement;
    @Nullable private final RowShape resultShape;
    private final List<ColumnChange> diff;
    private final Instant timestamp;

    private SchemaChange(Kind kind, TableId table, @Nullable String statement, @Nullable RowShape resultShape,
            List<ColumnChange> diff, Instant timestamp) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.table = Objects.requireNonNull(table, "table");
        this.statement = statement;
        this.resultShape = resultShape;
        this.diff = List.copyOf(diff);
        this.timestamp = Objects.requireNonNull(timestamp, "timestamp");
        if (resultShape != null && !sameTable(table, resultShape)) {
            throw new IllegalArgumentException("Shape of " + resultShape.schema() + "." + resultShape.table()
                    + " recorded for table " + table);
        }
    }

    private static boolean sameTable(TableId table, RowShape shape) {
        String schema = table.schema() == null ? table.database() : table.schema();
        return schema.equals(shape.schema()) && table.table().equals(shape.table());
    }

    public static SchemaChange create(TableId table, String statement, RowShape shape, Instant timestamp) {
        return new SchemaChange(Kind.CREATE_TABLE, table, statement, Objects.requireNonNull(shape, "shape"),
                List.of(), timestamp);
    }

    /** An ALTER whose resulting shape is known (read from the catalogue); the diff is informative. */
    public static SchemaChange alter(TableId table, String statement, RowShape shape, List<ColumnChange> diff,
            Instant timestamp) {
        return new SchemaChange(Kind.ALTER_TABLE, table, statement, Objects.requireNonNull(shape, "shape"), diff,
                timestamp);
    }

    /** An ALTER known only by its diff, applied to the table's latest shape when recorded. */
    public static SchemaChange alter(TableId table, String statement, List<ColumnChange> diff, Instant timestamp) {
        return new SchemaChange(Kind.ALTER_TABLE, table, statement, null, diff, timestamp);
    }

    public static SchemaChange drop(TableId table, String statement, Instant timestamp) {
        return new SchemaChange(Kind.DROP_TABLE, table, statement, null, List.of(), timestamp);
    }

    /**
     * The history entry a schema change event makes, at {@code timestamp}: a drop for a {@code DROP_TABLE}
     * (or an event with neither a resulting shape nor a kind), a creation or an alteration to the shape
     * the event carries; null for a creation or alteration whose resulting shape is unknown (the next
     * row's shape will tell it).
     */
    @Nullable
    public static SchemaChange ofEvent(ChangeEvent event, Instant timestamp) {
        RowShape shape = event.shape();
        TableId table = event.table();
        String statement = event.after() == null ? null : (String) event.after().get("statement");
        DdlType ddlType = SchemaChangeRows.ddlType(event.after());
        if (ddlType == DdlType.DROP_TABLE || (shape == null && ddlType == null)) {
            return drop(table, statement, timestamp);
        } else if (shape != null && ddlType == DdlType.CREATE_TABLE) {
            return create(table, statement == null ? "" : statement, shape, timestamp);
        } else if (shape != null) {
            return alter(table, statement == null ? "" : statement, shape, List.of(), timestamp);
        }
        return null;
    }

    public static SchemaChange rowShape(TableId table, RowShape shape, Instant timestamp) {
        return new SchemaChange(Kind.ROW_SHAPE, table, null, Objects.requireNonNull(shape, "shape"), List.of(),
                timestamp);
    }

    /** Rebuilds an entry read from state; no checks beyond the constructor's. */
    static SchemaChange restore(Kind kind, TableId table, @Nullable String statement, @Nullable RowShape shape,
            List<ColumnChange> diff, Instant timestamp) {
        return new SchemaChange(kind, table, statement, shape, diff, timestamp);
    }

    public Kind kind() {
        return kind;
    }

    public TableId table() {
        return table;
    }

    /** The DDL statement as captured, or null for a row shape. */
    @Nullable
    public String statement() {
        return statement;
    }

    /** The shape the change leaves, when known; null for a drop and for a diff-only alter. */
    @Nullable
    public RowShape resultShape() {
        return resultShape;
    }

    public List<ColumnChange> diff() {
        return diff;
    }

    /** When the change happened at the source (commit time), for point-in-time lookups. */
    public Instant timestamp() {
        return timestamp;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SchemaChange)) {
            return false;
        }
        SchemaChange c = (SchemaChange) o;
        return kind == c.kind && table.equals(c.table) && Objects.equals(statement, c.statement)
                && Objects.equals(resultShape, c.resultShape) && diff.equals(c.diff) && timestamp.equals(c.timestamp);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, table, statement, resultShape, diff, timestamp);
    }

    @Override
    public String toString() {
        return kind + " " + table + " at " + timestamp + (diff.isEmpty() ? "" : " " + diff)
                + (resultShape == null ? "" : " -> " + resultShape.id());
    }
}
