package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.apache.flink.annotation.Internal;

/**
 * Orders chunk key values exactly as the databases do, for the kinds where that order is defined
 * by the value alone: integers, decimals (PostgreSQL: {@code -Infinity} < numbers < {@code
 * Infinity} < {@code NaN}), UUIDs and binary strings (unsigned bytes), dates and timestamps
 * ({@code -infinity} first, {@code infinity} last). Text is not among them: its order depends on a
 * collation. A null key value sorts last, as in a default {@code ORDER BY}.
 */
@Internal
public final class KeyOrder {
    private KeyOrder() {}

    /** Whether values of {@code type} can be ordered here exactly as the database orders them. */
    public static boolean isOrdered(ValueType type) {
        switch (type.kind()) {
            case INTEGER:
            case BIGINT:
            case UNSIGNED_BIGINT:
            case DECIMAL:
            case UUID:
            case BYTES:
            case DATE:
            case TIMESTAMP:
            case TIMESTAMP_TZ:
                return true;
            default:
                return false;
        }
    }

    /** Compares two keys of the given column types, column by column. */
    public static int compare(List<ValueType> types, Object[] a, Object[] b) {
        for (int i = 0; i < types.size(); i++) {
            int c = compare(types.get(i), a[i], b[i]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    static int compare(ValueType type, Object a, Object b) {
        if (a == null || b == null) {
            return a == b ? 0 : a == null ? 1 : -1;
        }
        int ra = rank(a);
        int rb = rank(b);
        if (ra != 0 || rb != 0) {
            return Integer.compare(ra, rb);
        }
        ValueKind kind = type.kind();
        switch (kind) {
            case INTEGER:
            case BIGINT:
                return Long.compare((Long) a, (Long) b);
            case UNSIGNED_BIGINT:
                return ((BigInteger) a).compareTo((BigInteger) b);
            case DECIMAL:
                return ((BigDecimal) a).compareTo((BigDecimal) b);
            case UUID: {
                UUID x = (UUID) a;
                UUID y = (UUID) b;
                int c = Long.compareUnsigned(x.getMostSignificantBits(), y.getMostSignificantBits());
                return c != 0 ? c : Long.compareUnsigned(x.getLeastSignificantBits(), y.getLeastSignificantBits());
            }
            case BYTES:
                return Arrays.compareUnsigned((byte[]) a, (byte[]) b);
            case DATE:
                return ((LocalDate) a).compareTo((LocalDate) b);
            case TIMESTAMP:
                return ((LocalDateTime) a).compareTo((LocalDateTime) b);
            case TIMESTAMP_TZ:
                return ((Instant) a).compareTo((Instant) b);
            default:
                throw new IllegalArgumentException("No exact order for chunk keys of kind " + kind);
        }
    }

    /** Where a special value sorts: -infinity before, infinity and NaN after every ordinary value. */
    private static int rank(Object v) {
        if (!(v instanceof SpecialValue)) {
            return 0;
        }
        switch (((SpecialValue) v).type()) {
            case NEGATIVE_INFINITY:
                return -2;
            case POSITIVE_INFINITY:
                return 1;
            case NAN:
                return 2;
            default:
                throw new IllegalArgumentException("A zero date has no place in a key order");
        }
    }
}
