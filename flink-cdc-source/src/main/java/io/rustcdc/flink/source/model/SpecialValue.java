package io.rustcdc.flink.source.model;

import java.io.Serializable;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A value that has no place in the Java type of its kind: PostgreSQL numeric NaN and infinities,
 * PostgreSQL date and timestamp infinities, and MySQL zero dates ("0000-00-00") kept as written.
 * Never a stand-in for a value that failed to decode. Immutable.
 */
@PublicEvolving
public final class SpecialValue implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Which special value this is. */
    public enum Type {
        NAN,
        POSITIVE_INFINITY,
        NEGATIVE_INFINITY,
        /** A MySQL date or datetime with zero parts, kept as the server wrote it. */
        ZERO_DATE
    }

    public static final SpecialValue NAN = new SpecialValue(Type.NAN, "NaN");
    public static final SpecialValue POSITIVE_INFINITY = new SpecialValue(Type.POSITIVE_INFINITY, "infinity");
    public static final SpecialValue NEGATIVE_INFINITY = new SpecialValue(Type.NEGATIVE_INFINITY, "-infinity");

    private final Type type;
    private final String text;

    private SpecialValue(Type type, String text) {
        this.type = type;
        this.text = text;
    }

    /** A MySQL zero date or datetime, e.g. {@code 0000-00-00} or {@code 2024-00-00 00:00:00}. */
    public static SpecialValue zeroDate(String asWritten) {
        return new SpecialValue(Type.ZERO_DATE, Objects.requireNonNull(asWritten, "asWritten"));
    }

    public Type type() {
        return type;
    }

    /**
     * The text of this value in a temporal column: {@code infinity}, {@code -infinity}, or the
     * zero date as written.
     */
    public String temporalText() {
        return text;
    }

    /** The text of this value in a numeric column: {@code NaN}, {@code Infinity}, {@code -Infinity}. */
    public String numericText() {
        switch (type) {
            case NAN:
                return "NaN";
            case POSITIVE_INFINITY:
                return "Infinity";
            case NEGATIVE_INFINITY:
                return "-Infinity";
            default:
                throw new IllegalStateException("A zero date is not a number");
        }
    }

    private Object readResolve() {
        switch (type) {
            case NAN:
                return NAN;
            case POSITIVE_INFINITY:
                return POSITIVE_INFINITY;
            case NEGATIVE_INFINITY:
                return NEGATIVE_INFINITY;
            default:
                return this;
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SpecialValue)) {
            return false;
        }
        SpecialValue s = (SpecialValue) o;
        return type == s.type && text.equals(s.text);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, text);
    }

    @Override
    public String toString() {
        return text;
    }
}
