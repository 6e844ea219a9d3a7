package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.model.PositionString;
import io.rustcdc.flink.source.model.PositionText;
import java.io.Serializable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A PostgreSQL write-ahead-log position (an LSN), compared as an unsigned 64-bit number and
 * written as PostgreSQL does, {@code 16/B374D848}. Immutable.
 */
@PublicEvolving
public final class Lsn implements Comparable<Lsn>, Serializable {
    private static final long serialVersionUID = 1L;

    public static final Lsn ZERO = new Lsn(0);

    private final long value;

    private Lsn(long value) {
        this.value = value;
    }

    public static Lsn valueOf(long value) {
        return value == 0 ? ZERO : new Lsn(value);
    }

    /** Parses PostgreSQL's notation, {@code X/X} in hex. */
    public static Lsn valueOf(String text) {
        int slash = text.indexOf('/');
        if (slash <= 0 || slash == text.length() - 1) {
            throw new IllegalArgumentException("Not an LSN: '" + text + "' (expected the form 16/B374D848)");
        }
        try {
            long high = Long.parseLong(text.substring(0, slash), 16);
            long low = Long.parseLong(text.substring(slash + 1), 16);
            if (high > 0xFFFFFFFFL || low > 0xFFFFFFFFL || high < 0 || low < 0) {
                throw new NumberFormatException();
            }
            return valueOf(high << 32 | low);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Not an LSN: '" + text + "' (expected the form 16/B374D848)");
        }
    }

    public long asLong() {
        return value;
    }

    /** The next position: where to resume so that a record starting here is skipped. */
    public Lsn next() {
        return valueOf(value + 1);
    }

    public boolean isAfter(Lsn other) {
        return compareTo(other) > 0;
    }

    @Override
    public int compareTo(Lsn other) {
        return Long.compareUnsigned(value, other.value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Lsn && ((Lsn) o).value == value;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(value);
    }

    /** {@code 16/B374D848}, as {@link #writeTo} writes it. */
    @Override
    public String toString() {
        return PositionString.of(this::writeTo);
    }

    /** PostgreSQL's notation: the high and low 32 bits in upper-case hex, unpadded, {@code 16/B374D848}. */
    public void writeTo(PositionText out) {
        out.hex(value >>> 32, 1).text("/").hex(value & 0xFFFFFFFFL, 1);
    }
}
