package io.rustcdc.flink.postgres.types;

import io.rustcdc.flink.source.model.SpecialValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.UUID;
import java.util.stream.LongStream;

/**
 * Reads the binary forms PostgreSQL's send functions write (big-endian), into the same values as the text
 * decoders of {@link PgType}: integers as longs, {@code numeric} as a {@link BigDecimal} of the value's
 * display scale ({@code dscale}, the scale its text shows), dates and timestamps counted from 2000-01-01
 * with PostgreSQL's infinities, text in the connection's encoding (UTF-8). Nothing is rounded: a value
 * whose bytes are not what the type sends fails.
 */
final class PgBinary {
    /** 2000-01-01, PostgreSQL's epoch for dates and timestamps, in days and seconds since 1970-01-01. */
    private static final long EPOCH_DAY_2000 = 10_957L;
    private static final long EPOCH_SECOND_2000 = EPOCH_DAY_2000 * 86_400L;
    private static final long MICROS_PER_SECOND = 1_000_000L;
    private static final int NUMERIC_POSITIVE = 0x0000;
    private static final int NUMERIC_NEGATIVE = 0x4000;
    private static final int NUMERIC_NAN = 0xC000;
    private static final int NUMERIC_POSITIVE_INFINITY = 0xD000;
    private static final int NUMERIC_NEGATIVE_INFINITY = 0xF000;
    private static final int NUMERIC_BASE = 10_000;
    /** Base-10000 digits whose value a long holds whatever they are: 4 of them, 16 decimal digits. */
    private static final int LONG_NUMERIC_DIGITS = 4;
    /** 10^0 to 10^16: every power {@link #small} multiplies or divides by. */
    private static final long[] POWERS_OF_TEN = LongStream.iterate(1L, p -> p * 10).limit(17).toArray();

    private PgBinary() {}

    static Boolean bool(byte[] b, int from, int to) {
        length(from, to, 1, "boolean");
        if (b[from] == 0 || b[from] == 1) {
            return b[from] == 1;
        }
        throw malformed("boolean");
    }

    static Long int2(byte[] b, int from, int to) {
        length(from, to, 2, "smallint");
        return (long) (short) ((b[from] & 0xFF) << 8 | (b[from + 1] & 0xFF));
    }

    static Long int4(byte[] b, int from, int to) {
        length(from, to, 4, "integer");
        return (long) int32(b, from);
    }

    static Long int8(byte[] b, int from, int to) {
        length(from, to, 8, "bigint");
        return int64(b, from);
    }

    /** oid, xid and cid: unsigned 32 bits, as their text prints them. */
    static Long uint4(byte[] b, int from, int to) {
        length(from, to, 4, "unsigned integer");
        return Integer.toUnsignedLong(int32(b, from));
    }

    /** A NaN as {@link Float#NaN}, whatever its bits: its text, {@code NaN}, reads as that one. */
    static Float float4(byte[] b, int from, int to) {
        length(from, to, 4, "real");
        float value = Float.intBitsToFloat(int32(b, from));
        return Float.isNaN(value) ? Float.NaN : value;
    }

    /** A NaN as {@link Double#NaN}, whatever its bits (x86's {@code Infinity - Infinity} is another). */
    static Double float8(byte[] b, int from, int to) {
        length(from, to, 8, "double precision");
        double value = Double.longBitsToDouble(int64(b, from));
        return Double.isNaN(value) ? Double.NaN : value;
    }

    static String text(byte[] b, int from, int to) {
        return new String(b, from, to - from, StandardCharsets.UTF_8);
    }

    /** {@code jsonb}: a version byte (1), then the document's text. */
    static String jsonb(byte[] b, int from, int to) {
        if (to <= from || b[from] != 1) {
            throw malformed("jsonb of version 1");
        }
        return text(b, from + 1, to);
    }

    static byte[] bytea(byte[] b, int from, int to) {
        return Arrays.copyOfRange(b, from, to);
    }

    static UUID uuid(byte[] b, int from, int to) {
        length(from, to, 16, "uuid");
        return new UUID(int64(b, from), int64(b, from + 8));
    }

    /** Days since 2000-01-01; the least and greatest int are -infinity and infinity. */
    static Object date(byte[] b, int from, int to) {
        length(from, to, 4, "date");
        int days = int32(b, from);
        if (days == Integer.MAX_VALUE) {
            return SpecialValue.POSITIVE_INFINITY;
        }
        if (days == Integer.MIN_VALUE) {
            return SpecialValue.NEGATIVE_INFINITY;
        }
        return LocalDate.ofEpochDay(EPOCH_DAY_2000 + days);
    }

    /** Microseconds since midnight. */
    static Duration time(byte[] b, int from, int to) {
        length(from, to, 8, "time");
        long micros = int64(b, from);
        if (micros < 0 || micros > 86_400L * MICROS_PER_SECOND) {
            throw malformed("time");
        }
        return Duration.ofNanos(micros * 1_000L);
    }

    static Object timestamp(byte[] b, int from, int to) {
        length(from, to, 8, "timestamp");
        long micros = int64(b, from);
        Object special = infinity(micros);
        if (special != null) {
            return special;
        }
        return LocalDateTime.ofEpochSecond(seconds(micros), nanos(micros), ZoneOffset.UTC);
    }

    static Object timestampTz(byte[] b, int from, int to) {
        length(from, to, 8, "timestamptz");
        long micros = int64(b, from);
        Object special = infinity(micros);
        if (special != null) {
            return special;
        }
        return Instant.ofEpochSecond(seconds(micros), nanos(micros));
    }

    /**
     * {@code numeric}: the count of base-10000 digits, the weight of the first (its power of 10000), the sign
     * (or NaN, infinity, -infinity), the display scale, then the digits.
     */
    static Object numeric(byte[] b, int from, int to) {
        if (to - from < 8) {
            throw malformed("numeric");
        }
        int count = int16(b, from);
        int weight = (short) int16(b, from + 2);
        int sign = int16(b, from + 4);
        int scale = int16(b, from + 6);
        if (to - from != 8 + 2 * count || scale > 0x3FFF) {
            throw malformed("numeric");
        }
        switch (sign) {
            case NUMERIC_NAN:
                return SpecialValue.NAN;
            case NUMERIC_POSITIVE_INFINITY:
                return SpecialValue.POSITIVE_INFINITY;
            case NUMERIC_NEGATIVE_INFINITY:
                return SpecialValue.NEGATIVE_INFINITY;
            case NUMERIC_POSITIVE:
            case NUMERIC_NEGATIVE:
                break;
            default:
                throw malformed("numeric");
        }
        // the value is digits * 10000^(weight - count + 1); as an unscaled value of the display scale, the
        // digits times 10^shift
        int shift = 4 * (weight - count + 1) + scale;
        BigDecimal value = count <= LONG_NUMERIC_DIGITS && shift >= -4 * LONG_NUMERIC_DIGITS && shift <= 2
                ? small(b, from + 8, count, shift, scale)
                : large(b, from + 8, count, shift, scale);
        return sign == NUMERIC_NEGATIVE ? value.negate() : value;
    }

    /** Up to 4 digits, shifted by at most 2 places up or 16 down: a long holds every step. */
    private static BigDecimal small(byte[] b, int at, int count, int shift, int scale) {
        long digits = 0;
        for (int i = 0; i < count; i++) {
            digits = digits * NUMERIC_BASE + digit(b, at + 2 * i);
        }
        long unscaled;
        if (shift >= 0) {
            unscaled = digits * POWERS_OF_TEN[shift];
        } else {
            long divisor = POWERS_OF_TEN[-shift];
            if (digits % divisor != 0) {
                throw malformed("numeric"); // digits past the display scale that are not zero
            }
            unscaled = digits / divisor;
        }
        return BigDecimal.valueOf(unscaled, scale);
    }

    private static BigDecimal large(byte[] b, int at, int count, int shift, int scale) {
        BigInteger digits = BigInteger.ZERO;
        BigInteger base = BigInteger.valueOf(NUMERIC_BASE);
        for (int i = 0; i < count; i++) {
            digits = digits.multiply(base).add(BigInteger.valueOf(digit(b, at + 2 * i)));
        }
        try {
            return new BigDecimal(digits, scale - shift).setScale(scale, RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw malformed("numeric"); // digits past the display scale that are not zero
        }
    }

    private static int digit(byte[] b, int at) {
        int digit = int16(b, at);
        if (digit >= NUMERIC_BASE) {
            throw malformed("numeric");
        }
        return digit;
    }

    private static Object infinity(long micros) {
        if (micros == Long.MAX_VALUE) {
            return SpecialValue.POSITIVE_INFINITY;
        }
        if (micros == Long.MIN_VALUE) {
            return SpecialValue.NEGATIVE_INFINITY;
        }
        return null;
    }

    private static long seconds(long micros) {
        return EPOCH_SECOND_2000 + Math.floorDiv(micros, MICROS_PER_SECOND);
    }

    private static int nanos(long micros) {
        return (int) Math.floorMod(micros, MICROS_PER_SECOND) * 1_000;
    }

    private static void length(int from, int to, int expected, String what) {
        if (to - from != expected) {
            throw malformed(what);
        }
    }

    /** Unsigned 16 bits. */
    private static int int16(byte[] b, int at) {
        return (b[at] & 0xFF) << 8 | (b[at + 1] & 0xFF);
    }

    private static int int32(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }

    private static long int64(byte[] b, int at) {
        return (long) int32(b, at) << 32 | (int32(b, at + 4) & 0xFFFFFFFFL);
    }

    private static IllegalArgumentException malformed(String what) {
        // the bytes are a row value: they must not reach an error message
        return new PgTextException("not a " + what + " in PostgreSQL's binary form");
    }
}
