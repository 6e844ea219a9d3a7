package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.EmittedShapes;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.annotation.Nullable;

/**
 * What a binlog stream knows of each captured table's shape before its next DDL statement, and the
 * classification of each statement against it ({@link MySqlShapeChanges}). The shape before is the
 * one the table's last classified statement left, else the shape its rows carried since its last
 * statement (the catalogue's, read with them), else none: then the statement is UNKNOWN. A shape is
 * exact when a classified CREATE TABLE defined every column of it, and so is what classified
 * statements make of an exact shape; a shape from rows may already hold later changes of columns a
 * statement does not name, within a binlog type family, and so may what statements make of it. A
 * stream reopened at a position (a restore, a reconnection) starts from what the stream's events said
 * before it ({@link #resume}): the shape each table's last classified statement left and the shape its
 * rows carried since, both as not exact (exactness is not kept across a restart, so a column redefined
 * as it was is then UNKNOWN), the rows' shape until a row of the table is read again. Used on the
 * polling thread only.
 */
final class HeldShapes {
    private final Map<TableId, RowShape> leftByStatement = new HashMap<>();
    /** The tables whose shape in {@link #leftByStatement} is exact. */
    private final Set<TableId> exact = new HashSet<>();
    /** The shape each table's rows carried before the stream opened, until it reads one of them or a statement. */
    private final Map<TableId, RowShape> resumedRows = new HashMap<>();
    /** The table the last DROP_TABLE dropped and its shape before, for the CREATE_TABLE side of a rename. */
    @Nullable private TableId dropped;
    @Nullable private RowShape droppedShape;
    private boolean droppedExact;

    /**
     * Whether the statement cannot change any table's shape: an ALTER TABLE whose every clause reads
     * as an index, constraint, default or table option ({@code ADD INDEX}, {@code ENGINE=InnoDB}). Its
     * event is classified {@link ShapeChange.Kind#UNCHANGED} from the statement alone.
     */
    static boolean leavesShape(MySqlDdl.Change change, String sql) {
        if (change.kind != MySqlDdl.Kind.ALTER_TABLE) {
            return false;
        }
        MySqlColumnDdl ddl = MySqlColumnDdl.alter(sql, change.mode);
        return ddl.unread == null && ddl.steps.isEmpty();
    }

    /** Starts from what the stream's events said of the shapes before the position it opened at. */
    void resume(EmittedShapes shapes) {
        for (TableId table : shapes.tables()) {
            RowShape left = shapes.leftByChange(table);
            if (left != null) {
                leftByStatement.put(table, left);
                exact.remove(table);
            }
            RowShape rows = shapes.rows(table);
            if (rows != null) {
                resumedRows.put(table, rows);
            } else {
                resumedRows.remove(table);
            }
        }
    }

    /** The stream read a row of {@code table}: the shape its rows carry is the stream's own from now on. */
    void rowsRead(TableId table) {
        if (!resumedRows.isEmpty()) {
            resumedRows.remove(table);
        }
    }

    /**
     * A statement that cannot change the table's shape ({@link #leavesShape}): the shape it leaves is
     * the one held before it, which stays held; null when none is, or when the rows since the last
     * statement carried another shape than that statement left (then nothing is held after it).
     *
     * @param rowsShape the shape the table's rows carried since its last statement; null when none
     */
    @Nullable
    RowShape unchanged(TableId table, @Nullable RowShape rowsShape) {
        rowsShape = rowsSince(table, rowsShape);
        RowShape held = leftByStatement.get(table);
        if (held != null && rowsShape != null && !held.equals(rowsShape)) {
            leftByStatement.remove(table);
            exact.remove(table);
            return null;
        }
        RowShape before = held != null ? held : rowsShape;
        if (before != null) {
            leftByStatement.put(table, before);
        }
        return before;
    }

    /**
     * The classified changes of one table's schema change.
     *
     * @param rowsShape the shape the table's rows carried since its last statement; null when none
     * @param after the catalogue's shape read now; null after a drop, or when it cannot be read
     */
    List<ShapeChange> classify(MySqlDdl.Change change, String sql, @Nullable RowShape rowsShape,
            @Nullable RowShape after) {
        rowsShape = rowsSince(change.table, rowsShape);
        RowShape held = leftByStatement.remove(change.table);
        boolean exactBefore = exact.remove(change.table);
        if (held != null && rowsShape != null && !held.equals(rowsShape)) {
            // rows since the last statement carried another shape: a change unseen, or rows read after later ones
            held = null;
            exactBefore = false;
            if (change.kind == MySqlDdl.Kind.ALTER_TABLE) {
                return MySqlShapeChanges.unknown(rowsShape, after, "the table's rows since its last statement carried "
                        + "another shape than that statement left: the table changed in a way the source did not see, "
                        + "or the rows were read after later statements");
            }
        }
        RowShape before = held != null ? held : rowsShape;
        List<ShapeChange> changes;
        boolean exactAfter;
        switch (change.kind) {
            case DROP_TABLE:
                dropped = change.table;
                droppedShape = before;
                droppedExact = exactBefore;
                return List.of(ShapeChange.tableDropped());
            case CREATE_TABLE:
                changes = change.renamedFrom != null ? renamed(change, sql, after) : created(change, sql, before, after);
                exactAfter = change.renamedFrom != null ? droppedExact : true;
                break;
            default:
                changes = MySqlShapeChanges.altered(before, exactBefore, after, MySqlColumnDdl.alter(sql, change.mode));
                exactAfter = exactBefore;
        }
        if (after != null && changes.stream().noneMatch(c -> c.kind() == ShapeChange.Kind.UNKNOWN)) {
            leftByStatement.put(change.table, after);
            if (exactAfter) {
                exact.add(change.table);
            }
        }
        return changes;
    }

    /** The rows' shape since the table's last statement: the stream's, else the one resumed; a statement ends both. */
    @Nullable
    private RowShape rowsSince(TableId table, @Nullable RowShape read) {
        RowShape resumed = resumedRows.remove(table);
        return read != null ? read : resumed;
    }

    private static List<ShapeChange> created(MySqlDdl.Change change, String sql, @Nullable RowShape before,
            @Nullable RowShape after) {
        if (change.ifNotExists) {
            return MySqlShapeChanges.unknown(before, after, "CREATE TABLE IF NOT EXISTS is logged when the table "
                    + "existed too, and then did nothing: the source cannot tell which");
        }
        List<ShapeChange> changes = MySqlShapeChanges.created(after, MySqlColumnDdl.create(sql, change.mode));
        if (!change.orReplace || changes.get(0).kind() != ShapeChange.Kind.TABLE_CREATED) {
            return changes;
        }
        return before == null ? MySqlShapeChanges.unknown(null, after, "CREATE OR REPLACE TABLE of a table the source "
                + "holds no shape of: created, or dropped and created again, which the source cannot tell apart")
                : List.of(ShapeChange.tableReplaced(after, "CREATE OR REPLACE TABLE: dropped and created again"));
    }

    /** The new name of a renamed table: created, with the columns the old one had and the statement's changes. */
    private List<ShapeChange> renamed(MySqlDdl.Change change, String sql, @Nullable RowShape after) {
        RowShape old = change.renamedFrom.equals(dropped) ? droppedShape : null;
        dropped = null;
        RowShape before = old == null ? null
                : RowShape.of(change.table.schema(), change.table.table(), old.columns(), old.primaryKey());
        List<ShapeChange> changes = MySqlShapeChanges.altered(before, droppedExact, after,
                MySqlColumnDdl.renamed(sql, change.mode));
        if (changes.stream().anyMatch(c -> c.kind() == ShapeChange.Kind.UNKNOWN)) {
            return changes;
        }
        return List.of(ShapeChange.tableCreated(after));
    }
}
