package io.rustcdc.flink.source.model;

import java.io.Serializable;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A column's {@link ValueKind} plus what rendering needs beyond it: the declared fractional
 * digits of a temporal type and the element type of an array. Immutable.
 */
@PublicEvolving
public final class ValueType implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Fractional digits when the type declares none: as many as the value needs. */
    public static final int UNSPECIFIED_PRECISION = -1;

    private final ValueKind kind;
    private final int precision;
    @Nullable private final ValueType element;

    private ValueType(ValueKind kind, int precision, @Nullable ValueType element) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.precision = precision;
        this.element = element;
    }

    /** A type of a kind that needs nothing more (not temporal with precision, not an array). */
    public static ValueType of(ValueKind kind) {
        if (kind == ValueKind.ARRAY) {
            throw new IllegalArgumentException("An array type needs its element type: use arrayOf");
        }
        return new ValueType(kind, UNSPECIFIED_PRECISION, null);
    }

    /**
     * A temporal type with {@code fractionalDigits} declared digits (0 to 9), or {@link
     * #UNSPECIFIED_PRECISION}.
     */
    public static ValueType temporal(ValueKind kind, int fractionalDigits) {
        if (kind != ValueKind.TIME && kind != ValueKind.TIMESTAMP && kind != ValueKind.TIMESTAMP_TZ) {
            throw new IllegalArgumentException(kind + " has no fractional digits");
        }
        if (fractionalDigits < UNSPECIFIED_PRECISION || fractionalDigits > 9) {
            throw new IllegalArgumentException("Fractional digits must be 0 to 9, not " + fractionalDigits);
        }
        return new ValueType(kind, fractionalDigits, null);
    }

    public static ValueType arrayOf(ValueType element) {
        return new ValueType(ValueKind.ARRAY, UNSPECIFIED_PRECISION, Objects.requireNonNull(element, "element"));
    }

    public ValueKind kind() {
        return kind;
    }

    /** Declared fractional digits, or {@link #UNSPECIFIED_PRECISION}. */
    public int precision() {
        return precision;
    }

    /** The element type of an array, null for any other kind. */
    @Nullable
    public ValueType element() {
        return element;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ValueType)) {
            return false;
        }
        ValueType t = (ValueType) o;
        return kind == t.kind && precision == t.precision && Objects.equals(element, t.element);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, precision, element);
    }

    @Override
    public String toString() {
        if (element != null) {
            return "ARRAY<" + element + ">";
        }
        return precision == UNSPECIFIED_PRECISION ? kind.name() : kind + "(" + precision + ")";
    }
}
