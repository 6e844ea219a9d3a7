package io.rustcdc.flink.source.model;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One row's decoded values, by the positions of its {@link RowType}. A value is null for SQL
 * NULL; a field the source did not supply (PostgreSQL's unchanged TOAST value) is <em>absent</em>,
 * which is not null: {@link #isPresent} tells them apart and {@link #get} refuses an absent field.
 * Two rows are equal when their types and values are (arrays by content). Immutable once built.
 *
 * <pre>{@code
 * Row row = Row.builder(type).set(0, 42L).set(1, "hello").build();
 * }</pre>
 */
@PublicEvolving
public final class Row implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Marks a field the source did not supply. Never escapes this class. */
    private static final Object ABSENT = new Absent();

    private final RowType type;
    private final Object[] values;

    private Row(RowType type, Object[] values) {
        this.type = type;
        this.values = values;
    }

    /** A builder whose fields start absent; set every field the source supplied. */
    public static Builder builder(RowType type) {
        return new Builder(type);
    }

    /** A row of all {@code values} in field order (none absent). */
    public static Row of(RowType type, Object... values) {
        if (values.length != type.size()) {
            throw new IllegalArgumentException(type.size() + " fields but " + values.length + " values");
        }
        return new Row(type, values.clone());
    }

    public RowType type() {
        return type;
    }

    public int size() {
        return values.length;
    }

    public boolean isPresent(int i) {
        return values[i] != ABSENT;
    }

    /**
     * The value of field {@code i} (see {@link ValueKind} for its Java type), null for SQL NULL.
     *
     * @throws IllegalStateException when the source did not supply the field
     */
    @Nullable
    public Object get(int i) {
        Object v = values[i];
        if (v == ABSENT) {
            throw new IllegalStateException("Field " + type.name(i) + " was not supplied by the source");
        }
        return v;
    }

    /** The value of the field {@code name}; see {@link #get(int)}. */
    @Nullable
    public Object get(String name) {
        int i = type.indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("No field " + name + " in " + type);
        }
        return get(i);
    }

    /** The names of the fields the source did not supply, in field order. */
    public List<String> absentFields() {
        List<String> absent = null;
        for (int i = 0; i < values.length; i++) {
            if (values[i] == ABSENT) {
                if (absent == null) {
                    absent = new ArrayList<>();
                }
                absent.add(type.name(i));
            }
        }
        return absent == null ? List.of() : absent;
    }

    /** A copy with each absent field taken from {@code old} at the same name, when it has one. */
    public Row fillAbsentFrom(Row old) {
        Object[] filled = null;
        for (int i = 0; i < values.length; i++) {
            if (values[i] == ABSENT) {
                int j = old.type.indexOf(type.name(i));
                if (j >= 0 && old.isPresent(j)) {
                    if (filled == null) {
                        filled = values.clone();
                    }
                    filled[i] = old.values[j];
                }
            }
        }
        return filled == null ? this : new Row(type, filled);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Row)) {
            return false;
        }
        Row r = (Row) o;
        if (!type.equals(r.type)) {
            return false;
        }
        for (int i = 0; i < values.length; i++) {
            if (!same(values[i], r.values[i])) {
                return false;
            }
        }
        return true;
    }

    /** Equality of two values, into arrays and the elements of lists (an array's {@code byte[]} elements). */
    private static boolean same(Object a, Object b) {
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!same(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return Objects.deepEquals(a, b);
    }

    @Override
    public int hashCode() {
        int hash = type.hashCode();
        for (Object v : values) {
            hash = 31 * hash + hash(v);
        }
        return hash;
    }

    private static int hash(Object v) {
        if (v instanceof List<?> list) {
            int hash = 1;
            for (Object e : list) {
                hash = 31 * hash + hash(e);
            }
            return hash;
        }
        // as Arrays.deepHashCode(new Object[] {v}) gave, without making that array: the same hashes as before
        if (v instanceof byte[] bytes) {
            return 31 + Arrays.hashCode(bytes);
        }
        if (v instanceof Object[] array) {
            return 31 + Arrays.deepHashCode(array);
        }
        if (v == null) {
            return 31;
        }
        if (v.getClass().isArray()) { // another primitive array, which no value kind holds
            return Arrays.deepHashCode(new Object[] {v});
        }
        return 31 + v.hashCode();
    }

    /** Field names and value types only: a row's values may be confidential and never go to a log. */
    @Override
    public String toString() {
        return "Row{" + type + ", absent=" + absentFields() + "}";
    }

    /** Builds one {@link Row}; not thread-safe. */
    @PublicEvolving
    public static final class Builder {
        private final RowType type;
        private Object[] values;

        private Builder(RowType type) {
            this.type = Objects.requireNonNull(type, "type");
            this.values = new Object[type.size()];
            Arrays.fill(values, ABSENT);
        }

        public Builder set(int i, @Nullable Object value) {
            values[i] = value;
            return this;
        }

        public Row build() {
            Row row = new Row(type, values);
            values = null; // a builder builds once: the row owns the array
            return row;
        }
    }

    private static final class Absent implements Serializable {
        private static final long serialVersionUID = 1L;

        private Object readResolve() {
            return ABSENT;
        }

        @Override
        public String toString() {
            return "<absent>";
        }
    }
}
