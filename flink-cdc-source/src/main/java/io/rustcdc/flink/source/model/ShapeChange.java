package io.rustcdc.flink.source.model;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One classified difference between two shapes of a table, as a {@link Op#SCHEMA_CHANGE} event
 * carries it ({@link ChangeEvent#shapeChanges()}): what kind of change, and the columns before and
 * after it. {@link Kind#UNKNOWN} is a difference the source cannot tell apart (a column gone and
 * another added at once is a rename or a drop and an add); it is never guessed. {@link Kind#UNCHANGED}
 * says the source classified a statement and it changed nothing of the shape (an index, a default,
 * a column redefined as it was): an event that carries no change at all is one its connector did
 * not classify. Immutable.
 *
 * <pre>{@code
 * for (ShapeChange c : event.shapeChanges()) {
 *     if (c.kind() == ShapeChange.Kind.COLUMN_ADDED && c.after().get(0).nullable()) { ... }
 * }
 * }</pre>
 */
@PublicEvolving
public final class ShapeChange implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The class of a change; {@link #wireName()} is how JSON, metrics and messages write it. */
    @PublicEvolving
    public enum Kind {
        /** A table the source did not capture before appeared (after: its columns). */
        TABLE_CREATED,
        /** The table is gone. */
        TABLE_DROPPED,
        /** The name now denotes another table (dropped and created again): its old rows are gone. */
        TABLE_REPLACED,
        /** One column added (after: it; position: its zero-based place in the new shape). */
        COLUMN_ADDED,
        /** One column removed (before: it). */
        COLUMN_REMOVED,
        /** One column renamed, which the source could tell from a drop and an add. */
        COLUMN_RENAMED,
        /** One column's declared type changed (its nullability may have changed with it). */
        COLUMN_TYPE_CHANGED,
        /** One column's nullability changed, its type did not. */
        COLUMN_NULLABILITY_CHANGED,
        /** The primary key changed (keyBefore, keyAfter). */
        PRIMARY_KEY_CHANGED,
        /** A difference the source cannot tell apart; before and after list the columns concerned. */
        UNKNOWN,
        /**
         * The source classified the statement: it left the shape as it was (an index, a constraint, a
         * default, a table option, a column redefined as it was). The only change of its event.
         */
        UNCHANGED;

        /** {@code column_added}, ... */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Kind kind;
    private final List<RowShape.Column> before;
    private final List<RowShape.Column> after;
    private final int position;
    private final List<String> keyBefore;
    private final List<String> keyAfter;
    private final String reason;

    private ShapeChange(Kind kind, List<RowShape.Column> before, List<RowShape.Column> after, int position,
            List<String> keyBefore, List<String> keyAfter, String reason) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.before = List.copyOf(before);
        this.after = List.copyOf(after);
        this.position = position;
        this.keyBefore = List.copyOf(keyBefore);
        this.keyAfter = List.copyOf(keyAfter);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public static ShapeChange tableCreated(RowShape shape) {
        return new ShapeChange(Kind.TABLE_CREATED, List.of(), shape.columns(), -1, List.of(), shape.primaryKey(), "");
    }

    public static ShapeChange tableDropped() {
        return new ShapeChange(Kind.TABLE_DROPPED, List.of(), List.of(), -1, List.of(), List.of(), "");
    }

    /** The table was replaced; {@code why} says how the source knows (e.g. its relation id changed). */
    public static ShapeChange tableReplaced(RowShape shape, String why) {
        return new ShapeChange(Kind.TABLE_REPLACED, List.of(), shape.columns(), -1, List.of(), shape.primaryKey(), why);
    }

    /** {@code column} added at zero-based {@code position} of the new shape. */
    public static ShapeChange columnAdded(RowShape.Column column, int position) {
        return new ShapeChange(Kind.COLUMN_ADDED, List.of(), List.of(column), position, List.of(), List.of(), "");
    }

    /**
     * One column added that the rows before it read as other than null ({@code why}: its default fills them, or its
     * values are generated), which a reader of the old shape cannot supply: not {@link #additive()}, whatever its
     * nullability; {@link #reason()} says why.
     */
    public static ShapeChange columnAddedFilled(RowShape.Column column, int position, String why) {
        return new ShapeChange(Kind.COLUMN_ADDED, List.of(), List.of(column), position, List.of(), List.of(), why);
    }

    /**
     * {@code changes} with each column added whose name {@code filled} accepts made {@linkplain #columnAddedFilled
     * filled} for {@code why}; the others as they are.
     */
    public static List<ShapeChange> markFilled(List<ShapeChange> changes, Predicate<String> filled, String why) {
        List<ShapeChange> marked = new ArrayList<>(changes.size());
        for (ShapeChange c : changes) {
            boolean mark = c.kind == Kind.COLUMN_ADDED && filled.test(c.after.get(0).name());
            marked.add(mark ? columnAddedFilled(c.after.get(0), c.position, why) : c);
        }
        return marked;
    }

    public static ShapeChange columnRemoved(RowShape.Column column) {
        return new ShapeChange(Kind.COLUMN_REMOVED, List.of(column), List.of(), -1, List.of(), List.of(), "");
    }

    public static ShapeChange columnRenamed(RowShape.Column from, RowShape.Column to) {
        return new ShapeChange(Kind.COLUMN_RENAMED, List.of(from), List.of(to), -1, List.of(), List.of(), "");
    }

    /** A type change, or a nullability change when only that differs between {@code from} and {@code to}. */
    public static ShapeChange columnChanged(RowShape.Column from, RowShape.Column to) {
        if (!from.name().equals(to.name()) || from.equals(to)) {
            throw new IllegalArgumentException("Not a change of one column: " + from + " -> " + to);
        }
        Kind kind = from.dataType().equals(to.dataType()) ? Kind.COLUMN_NULLABILITY_CHANGED : Kind.COLUMN_TYPE_CHANGED;
        return new ShapeChange(kind, List.of(from), List.of(to), -1, List.of(), List.of(), "");
    }

    public static ShapeChange primaryKeyChanged(List<String> before, List<String> after) {
        return new ShapeChange(Kind.PRIMARY_KEY_CHANGED, List.of(), List.of(), -1, before, after, "");
    }

    /** A difference that cannot be told apart: {@code gone} and {@code added} columns, and why. */
    public static ShapeChange unknown(List<RowShape.Column> gone, List<RowShape.Column> added, String reason) {
        return new ShapeChange(Kind.UNKNOWN, gone, added, -1, List.of(), List.of(), reason);
    }

    /** The statement the event announces changed nothing of the table's shape, which the source could tell. */
    public static ShapeChange unchanged() {
        return new ShapeChange(Kind.UNCHANGED, List.of(), List.of(), -1, List.of(), List.of(), "");
    }

    /** Rebuilds a change read back from its parts (state, another process); no checks beyond the factories'. */
    public static ShapeChange of(Kind kind, List<RowShape.Column> before, List<RowShape.Column> after, int position,
            List<String> keyBefore, List<String> keyAfter, String reason) {
        return new ShapeChange(kind, before, after, position, keyBefore, keyAfter, reason);
    }

    public Kind kind() {
        return kind;
    }

    /** The columns as they were (removed, renamed or changed; for UNKNOWN those gone); may be empty. */
    public List<RowShape.Column> before() {
        return before;
    }

    /** The columns as they are (added, renamed or changed; a created table's; for UNKNOWN those added). */
    public List<RowShape.Column> after() {
        return after;
    }

    /** For {@link Kind#COLUMN_ADDED}, the column's zero-based place in the new shape; else -1. */
    public int position() {
        return position;
    }

    /** For {@link Kind#PRIMARY_KEY_CHANGED}, the key before; else empty. */
    public List<String> keyBefore() {
        return keyBefore;
    }

    /** For {@link Kind#PRIMARY_KEY_CHANGED}, the key after (a created or replaced table's key); else empty. */
    public List<String> keyAfter() {
        return keyAfter;
    }

    /**
     * Why the source classified it so, where it says (UNKNOWN, TABLE_REPLACED, a COLUMN_ADDED {@linkplain
     * #columnAddedFilled filled} for the rows before it); else empty.
     */
    public String reason() {
        return reason;
    }

    /**
     * Whether the change only adds what a reader of the old shape may ignore: a table, or a nullable column that the
     * rows before it read as null (not one {@linkplain #columnAddedFilled filled} by a default or generated).
     */
    public boolean additive() {
        return kind == Kind.TABLE_CREATED || (kind == Kind.COLUMN_ADDED && after.get(0).nullable() && reason.isEmpty());
    }

    /** The change in words for messages, e.g. {@code column_type_changed amount numeric(12,4) NOT NULL -> text NOT NULL}. */
    public String describe() {
        switch (kind) {
            case TABLE_CREATED:
            case TABLE_DROPPED:
            case UNCHANGED:
                return kind.wireName();
            case TABLE_REPLACED:
                return kind.wireName() + (reason.isEmpty() ? "" : " (" + reason + ")");
            case PRIMARY_KEY_CHANGED:
                return kind.wireName() + " " + keyBefore + " -> " + keyAfter;
            case COLUMN_ADDED:
                return kind.wireName() + " " + after.get(0) + " at " + position + (reason.isEmpty() ? "" : " (" + reason + ")");
            case COLUMN_REMOVED:
                return kind.wireName() + " " + before.get(0);
            case UNKNOWN:
                return kind.wireName() + " " + columns(before) + " -> " + columns(after)
                        + (reason.isEmpty() ? "" : " (" + reason + ")");
            default:
                return kind.wireName() + " " + before.get(0) + " -> " + after.get(0);
        }
    }

    private static String columns(List<RowShape.Column> columns) {
        return columns.stream().map(RowShape.Column::toString).collect(Collectors.joining(", ", "[", "]"));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ShapeChange)) {
            return false;
        }
        ShapeChange c = (ShapeChange) o;
        return kind == c.kind && before.equals(c.before) && after.equals(c.after) && position == c.position
                && keyBefore.equals(c.keyBefore) && keyAfter.equals(c.keyAfter) && reason.equals(c.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, before, after, position, keyBefore, keyAfter, reason);
    }

    /** Column names and types only: shapes hold no values. */
    @Override
    public String toString() {
        return describe();
    }
}
