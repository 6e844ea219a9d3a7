package io.rustcdc.flink.postgres.types;

import io.rustcdc.flink.source.model.SpecialValue;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;

/**
 * Parses PostgreSQL's ISO temporal output ({@code DateStyle=ISO}): years past 9999 and {@code BC}
 * included (as astronomical years: 1 BC is year 0), {@code infinity} and {@code -infinity} kept,
 * {@code 24:00:00} kept for {@code time}. Nothing is rounded. The text is read in place from the bytes
 * COPY or pgoutput sent, {@code t[from, to)}, digit by digit (a snapshot decodes a timestamp per row and
 * column); {@link LocalDate#of} checks the date.
 */
final class PgTemporal {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long SECONDS_PER_DAY = 86_400L;
    /** {@link ZoneOffset}'s bound; PostgreSQL's own is under 16 hours. */
    private static final int MAX_OFFSET_SECONDS = 18 * 3600;
    private static final byte[] INFINITY = {'i', 'n', 'f', 'i', 'n', 'i', 't', 'y'};
    private static final byte[] BC = {' ', 'B', 'C'};

    private PgTemporal() {}

    static Object date(byte[] t, int from, int to) {
        SpecialValue special = infinity(t, from, to);
        if (special != null) {
            return special;
        }
        int end = eraEnd(t, from, to);
        return date(t, from, end, end < to);
    }

    static Duration time(byte[] t, int from, int to) {
        return Duration.ofNanos(nanoOfDay(t, from, to));
    }

    static Object timestamp(byte[] t, int from, int to) {
        SpecialValue special = infinity(t, from, to);
        if (special != null) {
            return special;
        }
        int end = eraEnd(t, from, to);
        int space = indexOf(t, from, end, ' ');
        if (space < 0) {
            throw malformed("timestamp");
        }
        long day = date(t, from, space, end < to).toEpochDay();
        long nanos = nanoOfDay(t, space + 1, end);
        return LocalDateTime.ofEpochSecond(day * SECONDS_PER_DAY + nanos / NANOS_PER_SECOND,
                (int) (nanos % NANOS_PER_SECOND), ZoneOffset.UTC);
    }

    static Object timestampTz(byte[] t, int from, int to) {
        SpecialValue special = infinity(t, from, to);
        if (special != null) {
            return special;
        }
        int end = eraEnd(t, from, to);
        int space = indexOf(t, from, end, ' ');
        int sign = lastSign(t, from, end);
        if (space < 0 || sign < space) {
            throw malformed("timestamptz");
        }
        long day = date(t, from, space, end < to).toEpochDay();
        long nanos = nanoOfDay(t, space + 1, sign);
        long local = day * SECONDS_PER_DAY + nanos / NANOS_PER_SECOND;
        return Instant.ofEpochSecond(local - offsetSeconds(t, sign, end), nanos % NANOS_PER_SECOND);
    }

    /** Where the text ends without its {@code BC} suffix. */
    private static int eraEnd(byte[] t, int from, int to) {
        return to - from >= BC.length && equal(t, to - BC.length, to, BC) ? to - BC.length : to;
    }

    private static SpecialValue infinity(byte[] t, int from, int to) {
        if (equal(t, from, to, INFINITY)) {
            return SpecialValue.POSITIVE_INFINITY;
        }
        if (to > from && t[from] == '-' && equal(t, from + 1, to, INFINITY)) {
            return SpecialValue.NEGATIVE_INFINITY;
        }
        return null;
    }

    /** Whether {@code t[from, to)} is {@code expected}. */
    private static boolean equal(byte[] t, int from, int to, byte[] expected) {
        return Arrays.equals(t, from, to, expected, 0, expected.length);
    }

    private static int indexOf(byte[] t, int from, int to, char c) {
        for (int i = from; i < to; i++) {
            if (t[i] == c) {
                return i;
            }
        }
        return -1;
    }

    /** The last {@code +} or {@code -} before {@code to}, or -1. */
    private static int lastSign(byte[] t, int from, int to) {
        for (int i = to - 1; i >= from; i--) {
            if (t[i] == '+' || t[i] == '-') {
                return i;
            }
        }
        return -1;
    }

    /** {@code Y...-MM-DD} between {@code from} and {@code to}: a year of 1 to 9 digits. */
    private static LocalDate date(byte[] t, int from, int to, boolean bc) {
        int dash = to - 6;
        if (dash <= from || t[dash] != '-' || t[dash + 3] != '-') {
            throw malformed("date");
        }
        int year = digits(t, from, dash, "date");
        int month = digits(t, dash + 1, dash + 3, "date");
        int day = digits(t, dash + 4, to, "date");
        return LocalDate.of(bc ? 1 - year : year, month, day);
    }

    /** {@code HH:MM:SS[.fraction]} between {@code from} and {@code to}, in nanoseconds; 24:00:00 allowed. */
    private static long nanoOfDay(byte[] t, int from, int to) {
        if (to - from < 8 || t[from + 2] != ':' || t[from + 5] != ':') {
            throw malformed("time");
        }
        long hours = digits(t, from, from + 2, "time");
        long minutes = digits(t, from + 3, from + 5, "time");
        long seconds = digits(t, from + 6, from + 8, "time");
        long nanos = 0;
        if (to > from + 8) {
            int fraction = to - from - 9;
            if (t[from + 8] != '.' || fraction < 1 || fraction > 9) {
                throw malformed("time");
            }
            nanos = digits(t, from + 9, to, "time");
            for (int i = fraction; i < 9; i++) {
                nanos *= 10;
            }
        }
        if (minutes > 59 || seconds > 59 || hours > 24 || (hours == 24 && (minutes | seconds | nanos) != 0)) {
            throw malformed("time");
        }
        return (hours * 3600 + minutes * 60 + seconds) * NANOS_PER_SECOND + nanos;
    }

    /** {@code +HH}, {@code +HH:MM} or {@code +HH:MM:SS} from {@code sign} to {@code to}, in seconds east of UTC. */
    private static int offsetSeconds(byte[] t, int sign, int to) {
        int length = to - sign;
        if (length != 3 && length != 6 && length != 9) {
            throw malformed("time zone offset");
        }
        int hours = digits(t, sign + 1, sign + 3, "time zone offset");
        int minutes = length > 3 ? sixtieths(t, sign + 3) : 0;
        int seconds = length > 6 ? sixtieths(t, sign + 6) : 0;
        int total = hours * 3600 + minutes * 60 + seconds;
        if (total > MAX_OFFSET_SECONDS) {
            throw malformed("time zone offset");
        }
        return t[sign] == '-' ? -total : total;
    }

    /** {@code :NN} at {@code colon}, NN at most 59. */
    private static int sixtieths(byte[] t, int colon) {
        int value = t[colon] == ':' ? digits(t, colon + 1, colon + 3, "time zone offset") : 60;
        if (value > 59) {
            throw malformed("time zone offset");
        }
        return value;
    }

    /** The decimal digits between {@code from} and {@code to}: 1 to 9 of them, nothing else. */
    private static int digits(byte[] t, int from, int to, String what) {
        if (to <= from || to - from > 9) {
            throw malformed(what);
        }
        int value = 0;
        for (int i = from; i < to; i++) {
            int digit = t[i] - '0';
            if (digit < 0 || digit > 9) {
                throw malformed(what);
            }
            value = value * 10 + digit;
        }
        return value;
    }

    private static IllegalArgumentException malformed(String what) {
        // the text is a row value: it must not reach an error message
        return new PgTextException("not a " + what + " in PostgreSQL's ISO output");
    }
}
