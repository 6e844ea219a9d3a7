package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.TableId;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * What a change stream's own events said of each table's shape, up to a position: the shape the
 * table's last schema change left, when its connector classified that change (no {@link
 * ShapeChange.Kind#UNKNOWN}, not unclassified) and knew the shape; and the shape the table's rows
 * carried since that change (the last row's; none when it carried none). Kept with the stream's
 * position in Flink state and given to the stream when it opens there ({@link
 * ChangeStream#resumeShapes}), so a connector that classifies a schema change against the shape
 * before it knows after a restore what it knew before. Built from every event the stream returned,
 * whatever the reader then emitted. Not thread-safe.
 *
 * <pre>{@code
 * EmittedShapes shapes = new EmittedShapes();
 * shapes.record(event);                    // each event the stream returned, in order
 * shapes.leftByChange(table);              // null when the last change was not classified
 * }</pre>
 */
@PublicEvolving
public final class EmittedShapes {
    private final Map<TableId, RowShape> leftByChange = new HashMap<>();
    private final Map<TableId, RowShape> rows = new HashMap<>();

    /** Takes one event the stream returned: a schema change, or a changed row (other events change nothing). */
    public void record(ChangeEvent event) {
        TableId table = event.table();
        if (event.op() == Op.SCHEMA_CHANGE) {
            rows.remove(table);
            boolean classified = !event.shapeChanges().isEmpty()
                    && event.shapeChanges().stream().noneMatch(c -> c.kind() == ShapeChange.Kind.UNKNOWN);
            if (classified && event.shape() != null) {
                leftByChange.put(table, event.shape());
            } else {
                leftByChange.remove(table);
            }
        } else if (event.op() == Op.INSERT || event.op() == Op.UPDATE || event.op() == Op.DELETE) {
            RowShape shape = event.shape();
            if (shape == null) {
                rows.remove(table);
            } else if (rows.get(table) != shape) {
                rows.put(table, shape);
            }
        }
    }

    /** The shape the table's last schema change left, when it was classified; null otherwise or when none was seen. */
    @Nullable
    public RowShape leftByChange(TableId table) {
        return leftByChange.get(table);
    }

    /** The shape the table's last row since its last schema change carried; null when none was seen or it carried none. */
    @Nullable
    public RowShape rows(TableId table) {
        return rows.get(table);
    }

    /** The tables with a shape of either kind. */
    public Set<TableId> tables() {
        Set<TableId> all = new HashSet<>(leftByChange.keySet());
        all.addAll(rows.keySet());
        return all;
    }

    /** Restores one table's shapes read from state; either may be null. */
    public void restore(TableId table, @Nullable RowShape left, @Nullable RowShape rowsShape) {
        if (left != null) {
            leftByChange.put(table, left);
        }
        if (rowsShape != null) {
            rows.put(table, rowsShape);
        }
    }

    /** An independent copy (shapes are immutable). */
    public EmittedShapes copy() {
        EmittedShapes copy = new EmittedShapes();
        copy.leftByChange.putAll(leftByChange);
        copy.rows.putAll(rows);
        return copy;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof EmittedShapes)) {
            return false;
        }
        EmittedShapes s = (EmittedShapes) o;
        return leftByChange.equals(s.leftByChange) && rows.equals(s.rows);
    }

    @Override
    public int hashCode() {
        return Objects.hash(leftByChange, rows);
    }

    /** Table names and shape ids only. */
    @Override
    public String toString() {
        return "EmittedShapes{" + tables().size() + " tables}";
    }
}
