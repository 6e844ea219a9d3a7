package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.KeyOrder;
import io.rustcdc.flink.source.spi.TextOrder;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.UUID;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * PostgreSQL's order of key values, as the default btree operator classes sort them: integers;
 * numeric with {@code -Infinity} < numbers < {@code Infinity} < {@code NaN} (1.50 = 1.5); uuid and
 * bytea by unsigned bytes (a prefix first); date and timestamps with {@code -infinity} first and
 * {@code infinity} last; text, varchar and name of a collation that compares bytes ({@link
 * #CODE_POINTS}, named so by {@link PgCollations}) by code point, which is UTF-8's byte order, and
 * character(n) so too with its trailing spaces ignored ({@link #CODE_POINTS_BLANK_PADDED}). Text of
 * any other collation is not ordered here: the server places such keys ({@link #placedByServer}, {@link
 * PgKeyPlacement}). A null sorts last, as in {@code ORDER BY ... ASC}.
 */
@Internal
public enum PostgresKeyOrder implements KeyOrder {
    INSTANCE;

    /** Text, varchar or name of a byte-comparing collation in a UTF8 database: by code point. */
    static final String CODE_POINTS = "C";
    /** character(n) of a byte-comparing collation in a UTF8 database: by code point, trailing spaces ignored. */
    static final String CODE_POINTS_BLANK_PADDED = "C, blank-padded";

    @Override
    public boolean orders(ValueType type, @Nullable String collation) {
        if (type.kind() == ValueKind.TEXT) {
            return CODE_POINTS.equals(collation) || CODE_POINTS_BLANK_PADDED.equals(collation);
        }
        return orders(type);
    }

    /** Text of any other collation (linguistic, libc or ICU): PostgreSQL compares it ({@link PgKeyPlacement}). */
    @Override
    public boolean placedByServer(ValueType type, @Nullable String collation) {
        return type.kind() == ValueKind.TEXT && collation != null && !orders(type, collation);
    }

    @Override
    public int compare(ValueType type, @Nullable String collation, @Nullable Object a, @Nullable Object b) {
        if (type.kind() != ValueKind.TEXT) {
            return compare(type, a, b);
        }
        if (!orders(type, collation)) {
            throw new IllegalArgumentException("PostgreSQL text of collation " + collation + " is not ordered here");
        }
        if (a == null || b == null) {
            return a == b ? 0 : a == null ? 1 : -1;
        }
        String x = (String) a;
        String y = (String) b;
        if (CODE_POINTS_BLANK_PADDED.equals(collation)) {
            return TextOrder.compareCodePoints(x, TextOrder.lengthWithoutTrailing(x, ' '), y,
                    TextOrder.lengthWithoutTrailing(y, ' '));
        }
        return TextOrder.compareCodePoints(x, x.length(), y, y.length());
    }

    @Override
    public boolean orders(ValueType type) {
        switch (type.kind()) {
            case INTEGER:
            case BIGINT:
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

    @Override
    public int compare(ValueType type, @Nullable Object a, @Nullable Object b) {
        if (!orders(type)) {
            throw new IllegalArgumentException("PostgreSQL keys of kind " + type.kind() + " are not ordered here");
        }
        if (a == null || b == null) {
            return a == b ? 0 : a == null ? 1 : -1;
        }
        int ra = rank(a);
        int rb = rank(b);
        if (ra != 0 || rb != 0) {
            return Integer.compare(ra, rb);
        }
        switch (type.kind()) {
            case INTEGER:
            case BIGINT:
                return Long.compare((Long) a, (Long) b);
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
            default:
                return ((Instant) a).compareTo((Instant) b);
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
                throw new IllegalArgumentException("PostgreSQL has no zero dates");
        }
    }
}
