package io.rustcdc.flink.source.history;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ShapeChange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Classifies the difference between two shapes of one table into {@link ShapeChange}s, and applies
 * classified changes to a shape. Knows no database: a connector that can tell which column is which
 * (PostgreSQL by attribute number, MySQL from a {@code RENAME COLUMN} statement) says so through
 * {@link #classify(RowShape, RowShape, Map)}; without that, columns are matched by name, and a
 * column gone while another is added is {@link ShapeChange.Kind#UNKNOWN}, never a guessed rename.
 *
 * <p>The classification is exact: {@link #apply} of a classification without UNKNOWN to the old
 * shape gives the new shape. Changes come in the order {@code apply} takes them: removals, renames,
 * type and nullability changes, additions by position, the key. Thread-safe (no state).
 *
 * <pre>{@code
 * List<ShapeChange> changes = ShapeDiff.classify(before, after);
 * RowShape again = ShapeDiff.apply(before, changes); // equals after unless a change is UNKNOWN
 * }</pre>
 */
@PublicEvolving
public final class ShapeDiff {
    private ShapeDiff() {}

    /** The changes from {@code before} to {@code after}, columns matched by name; empty when equal. */
    public static List<ShapeChange> classify(RowShape before, RowShape after) {
        Map<String, String> byName = new HashMap<>();
        for (RowShape.Column c : before.columns()) {
            if (after.column(c.name()).isPresent()) {
                byName.put(c.name(), c.name());
            }
        }
        return classify(before, after, byName, false);
    }

    /**
     * The changes from {@code before} to {@code after} when the source knows each column's identity:
     * {@code sameColumns} maps the name of every column of {@code before} that still exists to its
     * name in {@code after}. Columns of {@code before} it does not name were removed, columns of
     * {@code after} it does not reach were added.
     *
     * @throws IllegalArgumentException when the map names a column of neither shape, or two columns as one
     */
    public static List<ShapeChange> classify(RowShape before, RowShape after, Map<String, String> sameColumns) {
        Set<String> targets = new HashSet<>();
        for (Map.Entry<String, String> e : sameColumns.entrySet()) {
            if (before.column(e.getKey()).isEmpty() || after.column(e.getValue()).isEmpty() || !targets.add(e.getValue())) {
                throw new IllegalArgumentException("Column identities " + sameColumns + " do not fit " + before
                        + " and " + after);
            }
        }
        return classify(before, after, sameColumns, true);
    }

    private static List<ShapeChange> classify(RowShape before, RowShape after, Map<String, String> same,
            boolean identityKnown) {
        List<ShapeChange> changes = new ArrayList<>();
        if (before.equals(after)) {
            return changes;
        }
        Set<String> reached = new HashSet<>(same.values());
        List<RowShape.Column> gone = new ArrayList<>();
        for (RowShape.Column c : before.columns()) {
            if (!same.containsKey(c.name())) {
                gone.add(c);
            }
        }
        List<RowShape.Column> added = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < after.columns().size(); i++) {
            RowShape.Column c = after.columns().get(i);
            if (!reached.contains(c.name())) {
                added.add(c);
                positions.add(i);
            }
        }
        if (!orderKept(before, after, same)) {
            changes.add(ShapeChange.unknown(before.columns(), after.columns(),
                    "the order of the columns changed: a column moved, or was dropped and added again"));
            return changes;
        }
        boolean ambiguous = !identityKnown && !gone.isEmpty() && !added.isEmpty();
        if (ambiguous) {
            changes.add(ShapeChange.unknown(gone, added, "columns gone and columns added at once: a rename or a "
                    + "drop and an add, which the source cannot tell apart"));
        } else {
            gone.forEach(c -> changes.add(ShapeChange.columnRemoved(c)));
        }
        List<ShapeChange> modified = new ArrayList<>();
        for (RowShape.Column c : before.columns()) {
            String name = same.get(c.name());
            if (name == null) {
                continue;
            }
            RowShape.Column now = after.column(name).orElseThrow();
            RowShape.Column renamed = c;
            if (!name.equals(c.name())) {
                renamed = RowShape.Column.of(name, c.dataType(), c.nullable());
                changes.add(ShapeChange.columnRenamed(c, renamed));
            }
            if (!renamed.equals(now)) {
                modified.add(ShapeChange.columnChanged(renamed, now));
            }
        }
        changes.addAll(modified);
        if (!ambiguous) {
            for (int i = 0; i < added.size(); i++) {
                changes.add(ShapeChange.columnAdded(added.get(i), positions.get(i)));
            }
        }
        List<String> key = new ArrayList<>();
        for (String k : before.primaryKey()) {
            if (same.containsKey(k)) {
                key.add(same.get(k));
            }
        }
        if (!key.equals(after.primaryKey()) || (ambiguous && !before.primaryKey().equals(after.primaryKey()))) {
            changes.add(ShapeChange.primaryKeyChanged(before.primaryKey(), after.primaryKey()));
        }
        return changes;
    }

    /** Whether the columns both shapes hold keep their relative order. */
    private static boolean orderKept(RowShape before, RowShape after, Map<String, String> same) {
        List<String> inBefore = new ArrayList<>();
        for (RowShape.Column c : before.columns()) {
            if (same.containsKey(c.name())) {
                inBefore.add(same.get(c.name()));
            }
        }
        List<String> inAfter = new ArrayList<>();
        for (RowShape.Column c : after.columns()) {
            if (inBefore.contains(c.name())) {
                inAfter.add(c.name());
            }
        }
        return inBefore.equals(inAfter);
    }

    /**
     * {@code changes} applied to {@code shape}, in their order: the shape they lead to, null after a
     * table drop.
     *
     * @throws IllegalArgumentException when a change is {@link ShapeChange.Kind#UNKNOWN} or does not fit the shape
     */
    @Nullable
    public static RowShape apply(RowShape shape, List<ShapeChange> changes) {
        List<RowShape.Column> columns = new ArrayList<>(shape.columns());
        List<String> key = new ArrayList<>(shape.primaryKey());
        boolean dropped = false;
        List<RowShape.Column> namesBefore = null;
        List<String> keyBefore = null;
        for (ShapeChange c : changes) {
            if (c.kind() != ShapeChange.Kind.COLUMN_RENAMED) {
                namesBefore = null;
                keyBefore = null;
            }
            switch (c.kind()) {
                case TABLE_CREATED:
                case TABLE_REPLACED:
                    columns = new ArrayList<>(c.after());
                    key = new ArrayList<>(c.keyAfter());
                    dropped = false;
                    break;
                case TABLE_DROPPED:
                    dropped = true;
                    break;
                case COLUMN_REMOVED:
                    columns.remove(indexOf(columns, c.before().get(0), c));
                    key.remove(c.before().get(0).name());
                    break;
                case COLUMN_RENAMED: {
                    // renames apply at once (a -> b with b -> c), found by their names before the first of them
                    if (namesBefore == null) {
                        namesBefore = List.copyOf(columns);
                        keyBefore = List.copyOf(key);
                    }
                    columns.set(indexOf(namesBefore, c.before().get(0), c), c.after().get(0));
                    int k = keyBefore.indexOf(c.before().get(0).name());
                    if (k >= 0) {
                        key.set(k, c.after().get(0).name());
                    }
                    break;
                }
                case COLUMN_TYPE_CHANGED:
                case COLUMN_NULLABILITY_CHANGED:
                    columns.set(indexOf(columns, c.before().get(0), c), c.after().get(0));
                    break;
                case COLUMN_ADDED:
                    if (c.position() < 0 || c.position() > columns.size()) {
                        throw misfit(c, shape);
                    }
                    columns.add(c.position(), c.after().get(0));
                    break;
                case PRIMARY_KEY_CHANGED:
                    key = new ArrayList<>(c.keyAfter());
                    break;
                case UNCHANGED:
                    break;
                default:
                    throw new IllegalArgumentException("An UNKNOWN change cannot be applied to " + shape.schema() + "."
                            + shape.table() + ": " + c.describe());
            }
        }
        return dropped ? null : RowShape.of(shape.schema(), shape.table(), columns, key);
    }

    private static int indexOf(List<RowShape.Column> columns, RowShape.Column column, ShapeChange c) {
        for (int i = 0; i < columns.size(); i++) {
            if (Objects.equals(columns.get(i), column)) {
                return i;
            }
        }
        throw new IllegalArgumentException(c.describe() + " does not fit the columns " + columns);
    }

    private static IllegalArgumentException misfit(ShapeChange c, RowShape shape) {
        return new IllegalArgumentException(c.describe() + " does not fit " + shape);
    }
}
