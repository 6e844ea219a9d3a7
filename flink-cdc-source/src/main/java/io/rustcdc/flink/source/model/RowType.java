package io.rustcdc.flink.source.model;

import java.io.Serializable;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The names and value types of a row's fields, in order. One instance serves every row of a
 * table version, so a row carries only its values. Immutable and thread-safe.
 */
@PublicEvolving
public final class RowType implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String[] names;
    private final ValueType[] types;
    private final Map<String, Integer> positions;

    private RowType(String[] names, ValueType[] types) {
        if (names.length != types.length) {
            throw new IllegalArgumentException(names.length + " names but " + types.length + " types");
        }
        this.names = names;
        this.types = types;
        this.positions = new HashMap<>(names.length * 2);
        for (int i = 0; i < names.length; i++) {
            Objects.requireNonNull(names[i], "name");
            Objects.requireNonNull(types[i], "type");
            if (positions.put(names[i], i) != null) {
                throw new IllegalArgumentException("Field " + names[i] + " appears twice");
            }
        }
    }

    public static RowType of(List<String> names, List<ValueType> types) {
        return new RowType(names.toArray(new String[0]), types.toArray(new ValueType[0]));
    }

    public int size() {
        return names.length;
    }

    public String name(int i) {
        return names[i];
    }

    public ValueType type(int i) {
        return types[i];
    }

    public List<String> names() {
        return List.of(names);
    }

    /** The position of the field {@code name}, or -1. */
    public int indexOf(String name) {
        Integer i = positions.get(name);
        return i == null ? -1 : i;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof RowType)) {
            return false;
        }
        RowType t = (RowType) o;
        return Arrays.equals(names, t.names) && Arrays.equals(types, t.types);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(names) + Arrays.hashCode(types);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("RowType{");
        for (int i = 0; i < names.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(names[i]).append(' ').append(types[i]);
        }
        return sb.append('}').toString();
    }
}
