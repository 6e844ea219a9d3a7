package io.rustcdc.flink.source.history;

import io.rustcdc.flink.source.model.RowShape;
import java.io.Serializable;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/** One operation of an {@code ALTER TABLE} diff. Immutable. */
@PublicEvolving
public final class ColumnChange implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Where an added column goes when no position is given: after the last column. */
    public static final int AT_END = -1;

    /** The operation. */
    public enum Type {
        ADD,
        DROP,
        /** A new declared type or nullability for an existing column. */
        MODIFY,
        RENAME
    }

    private final Type type;
    private final String name;
    @Nullable private final RowShape.Column column;
    @Nullable private final String newName;
    private final int position;

    private ColumnChange(Type type, String name, @Nullable RowShape.Column column, @Nullable String newName, int position) {
        this.type = type;
        this.name = Objects.requireNonNull(name, "name");
        this.column = column;
        this.newName = newName;
        this.position = position;
    }

    /** Adds {@code column} at the end. */
    public static ColumnChange add(RowShape.Column column) {
        return add(column, AT_END);
    }

    /** Adds {@code column} at the zero-based {@code position} ({@link #AT_END} for the end). */
    public static ColumnChange add(RowShape.Column column, int position) {
        return new ColumnChange(Type.ADD, column.name(), column, null, position);
    }

    public static ColumnChange drop(String name) {
        return new ColumnChange(Type.DROP, name, null, null, AT_END);
    }

    /** Replaces the column of the same name (its declared type or nullability changed). */
    public static ColumnChange modify(RowShape.Column column) {
        return new ColumnChange(Type.MODIFY, column.name(), column, null, AT_END);
    }

    public static ColumnChange rename(String name, String newName) {
        return new ColumnChange(Type.RENAME, name, null, Objects.requireNonNull(newName, "newName"), AT_END);
    }

    public Type type() {
        return type;
    }

    /** The column the operation applies to (for ADD, the new column's name). */
    public String name() {
        return name;
    }

    /** The new column, for ADD and MODIFY; else null. */
    @Nullable
    public RowShape.Column column() {
        return column;
    }

    /** The new name, for RENAME; else null. */
    @Nullable
    public String newName() {
        return newName;
    }

    /** For ADD, the zero-based position or {@link #AT_END}. */
    public int position() {
        return position;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ColumnChange)) {
            return false;
        }
        ColumnChange c = (ColumnChange) o;
        return type == c.type && name.equals(c.name) && Objects.equals(column, c.column)
                && Objects.equals(newName, c.newName) && position == c.position;
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, name, column, newName, position);
    }

    @Override
    public String toString() {
        switch (type) {
            case ADD:
                return "ADD " + column + (position == AT_END ? "" : " AT " + position);
            case MODIFY:
                return "MODIFY " + column;
            case RENAME:
                return "RENAME " + name + " TO " + newName;
            default:
                return "DROP " + name;
        }
    }
}
