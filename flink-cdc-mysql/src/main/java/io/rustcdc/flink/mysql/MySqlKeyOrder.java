package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.spi.KeyOrder;
import io.rustcdc.flink.source.spi.TextOrder;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * MySQL's and MariaDB's order of key values: integers of either signedness (BIGINT UNSIGNED as
 * {@link BigInteger}), DECIMAL by value (1.50 = 1.5), BINARY/VARBINARY/BLOB by unsigned bytes (a
 * prefix first; a BINARY value is padded to its length with zero bytes as stored), DATE and DATETIME
 * by their fields, zero dates included ({@code 0000-00-00} first, {@code 2024-00-00} between
 * {@code 2023-12-31} and {@code 2024-01-01}, as the server compares them), TIMESTAMP by instant with
 * the zero timestamp first. CHAR and VARCHAR of a binary collation of UTF-8 ({@link
 * #collationName}) by code point, which is their bytes' order: PAD SPACE ones ({@code utf8mb4_bin},
 * {@code utf8mb3_bin}) as if the shorter were padded with spaces ({@code 'a' = 'a '}, {@code 'a\t' <
 * 'a'}), NO PAD ones ({@code utf8mb4_0900_bin}, MariaDB's {@code utf8mb4_nopad_bin}) as they are,
 * VARCHAR only. Text of any other collation is not ordered here (a linguistic collation's order is its
 * own, and other character sets' bytes do not sort as their code points): CHAR, VARCHAR and TEXT of such
 * a collation are placed among chunk bounds by the server ({@link #placedByServer}, {@link
 * MySqlKeyPlacement}). MariaDB's UUID type, which
 * decodes to text and has no collation, is described with {@link #UUID} in its place and ordered as
 * the server stores it ({@link MariaDbUuidOrder}: time-based UUIDs by node, clock, then time). A null
 * sorts first, as in {@code ORDER BY ... ASC} on MySQL.
 */
@Internal
public enum MySqlKeyOrder implements KeyOrder {
    INSTANCE;

    /** Binary collations of UTF-8 that compare with PAD SPACE. */
    private static final Set<String> PAD_SPACE_BINARY = Set.of("utf8mb4_bin", "utf8mb3_bin", "utf8_bin");
    /** Binary collations of UTF-8 that compare with NO PAD. */
    private static final Set<String> NO_PAD_BINARY = Set.of("utf8mb4_0900_bin", "utf8mb4_nopad_bin",
            "utf8mb3_nopad_bin", "utf8_nopad_bin");
    /** What a MariaDB UUID column's description names in place of a collation: its order. */
    static final String UUID = "uuid";
    private static final String ON_CHAR = " on CHAR";
    private static final String ON_OTHER = " on ";

    /**
     * The name of the collation of a column, as {@link io.rustcdc.flink.source.spi.TableDescription}
     * carries it: the collation itself for VARCHAR, with " on CHAR" for CHAR (whose trailing spaces
     * the server strips, so only PAD SPACE ones are ordered), with the type for any other text type;
     * {@link #UUID} for MariaDB's UUID; null for any other column without a collation.
     *
     * @param baseType the column's type name, lower case ({@code varchar}, {@code char}, {@code enum}, ...)
     */
    @Nullable
    static String collationName(String baseType, @Nullable String collation) {
        if (baseType.equals(UUID) && collation == null) {
            return UUID;
        }
        if (collation == null) {
            return null;
        }
        switch (baseType) {
            case "varchar":
                return collation;
            case "char":
                return collation + ON_CHAR;
            default:
                return collation + ON_OTHER + baseType.toUpperCase(java.util.Locale.ROOT);
        }
    }

    @Override
    public boolean orders(ValueType type, @Nullable String collation) {
        if (type.kind() != ValueKind.TEXT) {
            return orders(type);
        }
        if (collation == null) {
            return false;
        }
        if (collation.equals(UUID)) {
            return true;
        }
        if (collation.endsWith(ON_CHAR)) {
            return PAD_SPACE_BINARY.contains(collation.substring(0, collation.length() - ON_CHAR.length()));
        }
        return PAD_SPACE_BINARY.contains(collation) || NO_PAD_BINARY.contains(collation);
    }

    /**
     * As by default, a collation's two names taken as one: Oracle MySQL from 8.0.30 and MariaDB from 10.6 name
     * {@code utf8_bin} as {@code utf8mb3_bin} (a description from before a server's upgrade, or from a replica not yet
     * upgraded, still orders alike).
     */
    @Override
    public boolean sameOrder(ValueType a, @Nullable String collationA, ValueType b, @Nullable String collationB) {
        return KeyOrder.super.sameOrder(a, utf8mb3(collationA), b, utf8mb3(collationB));
    }

    /** The collation {@code name} ({@link #collationName}) names, without the column type it was named for. */
    static String collationOf(String name) {
        int on = name.indexOf(ON_OTHER);
        return on < 0 ? name : name.substring(0, on);
    }

    @Nullable
    private static String utf8mb3(@Nullable String collation) {
        return collation != null && collation.startsWith("utf8_") ? "utf8mb3_" + collation.substring(5) : collation;
    }

    /**
     * CHAR, VARCHAR and the TEXT types of a collation not ordered here (utf8mb4_0900_ai_ci, utf8mb4_general_ci,
     * MariaDB's uca1400 ones, latin1_swedish_ci, ...): the server compares them ({@link MySqlKeyPlacement}).
     * Not ENUM and SET, which the server sorts by their members' numbers but compares with text as text.
     */
    @Override
    public boolean placedByServer(ValueType type, @Nullable String collation) {
        if (type.kind() != ValueKind.TEXT || collation == null || orders(type, collation)) {
            return false;
        }
        int on = collation.indexOf(ON_OTHER);
        return on < 0 || collation.endsWith(ON_CHAR) || collation.endsWith("TEXT");
    }

    @Override
    public int compare(ValueType type, @Nullable String collation, @Nullable Object a, @Nullable Object b) {
        if (type.kind() != ValueKind.TEXT) {
            return compare(type, a, b);
        }
        if (!orders(type, collation)) {
            throw new IllegalArgumentException("MySQL text of collation " + collation + " is not ordered here");
        }
        if (a == null || b == null) {
            return a == b ? 0 : a == null ? -1 : 1;
        }
        String x = (String) a;
        String y = (String) b;
        if (collation.equals(UUID)) {
            return MariaDbUuidOrder.compare(x, y);
        }
        return NO_PAD_BINARY.contains(collation) ? TextOrder.compareCodePoints(x, x.length(), y, y.length())
                : TextOrder.comparePadded(x, y, ' ');
    }

    @Override
    public boolean orders(ValueType type) {
        switch (type.kind()) {
            case INTEGER:
            case BIGINT:
            case UNSIGNED_BIGINT:
            case DECIMAL:
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
            throw new IllegalArgumentException("MySQL keys of kind " + type.kind() + " are not ordered here");
        }
        if (a == null || b == null) {
            return a == b ? 0 : a == null ? -1 : 1;
        }
        switch (type.kind()) {
            case INTEGER:
            case BIGINT:
                return Long.compare((Long) a, (Long) b);
            case UNSIGNED_BIGINT:
                return ((BigInteger) a).compareTo((BigInteger) b);
            case DECIMAL:
                return ((BigDecimal) a).compareTo((BigDecimal) b);
            case BYTES:
                return Arrays.compareUnsigned((byte[]) a, (byte[]) b);
            case TIMESTAMP_TZ:
                return compareTimestamps(a, b);
            default:
                return Arrays.compare(fields(a), fields(b));
        }
    }

    /** The zero timestamp (stored as 0) first, then instants. */
    private static int compareTimestamps(Object a, Object b) {
        boolean zeroA = a instanceof SpecialValue;
        boolean zeroB = b instanceof SpecialValue;
        if (zeroA || zeroB) {
            return zeroA == zeroB ? 0 : zeroA ? -1 : 1;
        }
        return ((Instant) a).compareTo((Instant) b);
    }

    /** Year, month, day, hour, minute, second, nanosecond of a DATE or DATETIME value, zero dates too. */
    private static long[] fields(Object v) {
        if (v instanceof LocalDate) {
            LocalDate d = (LocalDate) v;
            return new long[] {d.getYear(), d.getMonthValue(), d.getDayOfMonth(), 0, 0, 0, 0};
        }
        if (v instanceof LocalDateTime) {
            LocalDateTime t = (LocalDateTime) v;
            return new long[] {t.getYear(), t.getMonthValue(), t.getDayOfMonth(), t.getHour(), t.getMinute(),
                t.getSecond(), t.getNano()};
        }
        return zeroDateFields(((SpecialValue) v).temporalText());
    }

    /** The fields of a zero date as written: {@code YYYY-MM-DD[ HH:MM:SS[.ffffff]]}. */
    private static long[] zeroDateFields(String text) {
        long[] f = new long[7];
        f[0] = Long.parseLong(text.substring(0, 4));
        f[1] = Long.parseLong(text.substring(5, 7));
        f[2] = Long.parseLong(text.substring(8, 10));
        if (text.length() >= 19) {
            f[3] = Long.parseLong(text.substring(11, 13));
            f[4] = Long.parseLong(text.substring(14, 16));
            f[5] = Long.parseLong(text.substring(17, 19));
        }
        if (text.length() > 20) {
            String fraction = (text.substring(20) + "000000000").substring(0, 9);
            f[6] = Long.parseLong(fraction);
        }
        return f;
    }
}
