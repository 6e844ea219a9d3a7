package io.rustcdc.flink.postgres.types;

import io.rustcdc.flink.source.model.SpecialValue;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Parses PostgreSQL's ISO temporal output ({@code DateStyle=ISO}): years past 9999 and {@code BC}
 * included (as astronomical years: 1 BC is year 0), {@code infinity} and {@code -infinity} kept,
 * {@code 24:00:00} kept for {@code time}. Nothing is rounded. The text is read in place, digit by
 * digit (a snapshot decodes a timestamp per row and column); {@link LocalDate#of} checks the date.
 */
final class PgTemporal {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long SECONDS_PER_DAY = 86_400L;
    /** {@link ZoneOffset}'s bound; PostgreSQL's own is under 16 hours. */
    private static final int MAX_OFFSET_SECONDS = 18 * 3600;

    private PgTemporal() {}

    static Object date(String text) {
        SpecialValue special = infinity(text);
        if (special != null) {
            return special;
        }
        int end = eraEnd(text);
        return date(text, 0, end, end < text.length(), text);
    }

    static Duration time(String text) {
        return Duration.ofNanos(nanoOfDay(text, 0, text.length(), text));
    }

    static Object timestamp(String text) {
        SpecialValue special = infinity(text);
        if (special != null) {
            return special;
        }
        int end = eraEnd(text);
        int space = text.indexOf(' ');
        if (space < 0 || space >= end) {
            throw malformed("timestamp", text);
        }
        long day = date(text, 0, space, end < text.length(), text).toEpochDay();
        long nanos = nanoOfDay(text, space + 1, end, text);
        return LocalDateTime.ofEpochSecond(day * SECONDS_PER_DAY + nanos / NANOS_PER_SECOND,
                (int) (nanos % NANOS_PER_SECOND), ZoneOffset.UTC);
    }

    static Object timestampTz(String text) {
        SpecialValue special = infinity(text);
        if (special != null) {
            return special;
        }
        int end = eraEnd(text);
        int space = text.indexOf(' ');
        int sign = Math.max(text.lastIndexOf('+', end - 1), text.lastIndexOf('-', end - 1));
        if (space < 0 || sign < space) {
            throw malformed("timestamptz", text);
        }
        long day = date(text, 0, space, end < text.length(), text).toEpochDay();
        long nanos = nanoOfDay(text, space + 1, sign, text);
        long local = day * SECONDS_PER_DAY + nanos / NANOS_PER_SECOND;
        return Instant.ofEpochSecond(local - offsetSeconds(text, sign, end), nanos % NANOS_PER_SECOND);
    }

    /** Where the text ends without its {@code BC} suffix. */
    private static int eraEnd(String text) {
        return text.endsWith(" BC") ? text.length() - 3 : text.length();
    }

    private static SpecialValue infinity(String text) {
        if (text.equals("infinity")) {
            return SpecialValue.POSITIVE_INFINITY;
        }
        if (text.equals("-infinity")) {
            return SpecialValue.NEGATIVE_INFINITY;
        }
        return null;
    }

    /** {@code Y...-MM-DD} between {@code from} and {@code to}: a year of 1 to 9 digits. */
    private static LocalDate date(String s, int from, int to, boolean bc, String whole) {
        int dash = to - 6;
        if (dash <= from || s.charAt(dash) != '-' || s.charAt(dash + 3) != '-') {
            throw malformed("date", whole);
        }
        int year = digits(s, from, dash, "date", whole);
        int month = digits(s, dash + 1, dash + 3, "date", whole);
        int day = digits(s, dash + 4, to, "date", whole);
        return LocalDate.of(bc ? 1 - year : year, month, day);
    }

    /** {@code HH:MM:SS[.fraction]} between {@code from} and {@code to}, in nanoseconds; 24:00:00 allowed. */
    private static long nanoOfDay(String s, int from, int to, String whole) {
        if (to - from < 8 || s.charAt(from + 2) != ':' || s.charAt(from + 5) != ':') {
            throw malformed("time", whole);
        }
        long hours = digits(s, from, from + 2, "time", whole);
        long minutes = digits(s, from + 3, from + 5, "time", whole);
        long seconds = digits(s, from + 6, from + 8, "time", whole);
        long nanos = 0;
        if (to > from + 8) {
            int fraction = to - from - 9;
            if (s.charAt(from + 8) != '.' || fraction < 1 || fraction > 9) {
                throw malformed("time", whole);
            }
            nanos = digits(s, from + 9, to, "time", whole);
            for (int i = fraction; i < 9; i++) {
                nanos *= 10;
            }
        }
        if (minutes > 59 || seconds > 59 || hours > 24 || (hours == 24 && (minutes | seconds | nanos) != 0)) {
            throw malformed("time", whole);
        }
        return (hours * 3600 + minutes * 60 + seconds) * NANOS_PER_SECOND + nanos;
    }

    /** {@code +HH}, {@code +HH:MM} or {@code +HH:MM:SS} from {@code sign} to {@code to}, in seconds east of UTC. */
    private static int offsetSeconds(String s, int sign, int to) {
        int length = to - sign;
        if (length != 3 && length != 6 && length != 9) {
            throw malformed("time zone offset", s);
        }
        int hours = digits(s, sign + 1, sign + 3, "time zone offset", s);
        int minutes = length > 3 ? sixtieths(s, sign + 3) : 0;
        int seconds = length > 6 ? sixtieths(s, sign + 6) : 0;
        int total = hours * 3600 + minutes * 60 + seconds;
        if (total > MAX_OFFSET_SECONDS) {
            throw malformed("time zone offset", s);
        }
        return s.charAt(sign) == '-' ? -total : total;
    }

    /** {@code :NN} at {@code colon}, NN at most 59. */
    private static int sixtieths(String s, int colon) {
        int value = s.charAt(colon) == ':' ? digits(s, colon + 1, colon + 3, "time zone offset", s) : 60;
        if (value > 59) {
            throw malformed("time zone offset", s);
        }
        return value;
    }

    /** The decimal digits between {@code from} and {@code to}: 1 to 9 of them, nothing else. */
    private static int digits(String s, int from, int to, String what, String whole) {
        if (to <= from || to - from > 9) {
            throw malformed(what, whole);
        }
        int value = 0;
        for (int i = from; i < to; i++) {
            int digit = s.charAt(i) - '0';
            if (digit < 0 || digit > 9) {
                throw malformed(what, whole);
            }
            value = value * 10 + digit;
        }
        return value;
    }

    private static IllegalArgumentException malformed(String what, String whole) {
        // the text is a row value: it must not reach an error message
        return new PgTextException("not a " + what + " in PostgreSQL's ISO output (" + whole.length() + " characters)");
    }
}
