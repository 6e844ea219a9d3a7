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
 * {@code 24:00:00} kept for {@code time}. Nothing is rounded.
 */
final class PgTemporal {
    private PgTemporal() {}

    static Object date(String text) {
        return withEra(text, (body, bc) -> parseDate(body, bc, text));
    }

    static Duration time(String text) {
        return timeOfDay(text, 0, text.length(), text);
    }

    static Object timestamp(String text) {
        return withEra(text, (body, bc) -> localTimestamp(body, bc, text));
    }

    private static LocalDateTime localTimestamp(String body, boolean bc, String text) {
        int space = body.indexOf(' ');
        if (space < 0) {
            throw malformed("timestamp", text);
        }
        LocalDate date = parseDate(body.substring(0, space), bc, text);
        Duration time = timeOfDay(body, space + 1, body.length(), text);
        return date.atStartOfDay().plus(time);
    }

    static Object timestampTz(String text) {
        return withEra(text, (body, bc) -> instant(body, bc, text));
    }

    private static Instant instant(String body, boolean bc, String text) {
        int space = body.indexOf(' ');
        int sign = Math.max(body.lastIndexOf('+'), body.lastIndexOf('-'));
        if (space < 0 || sign < space) {
            throw malformed("timestamptz", text);
        }
        LocalDate date = parseDate(body.substring(0, space), bc, text);
        Duration time = timeOfDay(body, space + 1, sign, text);
        ZoneOffset offset = offset(body.substring(sign), text);
        LocalDateTime local = date.atStartOfDay().plus(time);
        return Instant.ofEpochSecond(local.toEpochSecond(offset), local.getNano());
    }

    /** What an era-aware parser reads: the text without its {@code BC} suffix, and whether it had one. */
    private interface EraParser {
        Object parse(String body, boolean bc);
    }

    /** {@code infinity} and {@code -infinity} as special values; anything else through {@code parser}. */
    private static Object withEra(String text, EraParser parser) {
        SpecialValue special = infinity(text);
        if (special != null) {
            return special;
        }
        boolean bc = text.endsWith(" BC");
        return parser.parse(bc ? text.substring(0, text.length() - 3) : text, bc);
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

    private static LocalDate parseDate(String s, boolean bc, String whole) {
        int first = s.indexOf('-');
        int second = s.indexOf('-', first + 1);
        if (first <= 0 || second != first + 3 || s.length() != second + 3) {
            throw malformed("date", whole);
        }
        int year = Integer.parseInt(s.substring(0, first));
        int month = Integer.parseInt(s.substring(first + 1, second));
        int day = Integer.parseInt(s.substring(second + 1));
        return LocalDate.of(bc ? 1 - year : year, month, day);
    }

    /** {@code HH:MM:SS[.fraction]} between {@code from} and {@code to}; 24:00:00 allowed. */
    private static Duration timeOfDay(String s, int from, int to, String whole) {
        if (to - from < 8 || s.charAt(from + 2) != ':' || s.charAt(from + 5) != ':') {
            throw malformed("time", whole);
        }
        long hours = Integer.parseInt(s, from, from + 2, 10);
        long minutes = Integer.parseInt(s, from + 3, from + 5, 10);
        long seconds = Integer.parseInt(s, from + 6, from + 8, 10);
        long nanos = 0;
        if (to > from + 8) {
            if (s.charAt(from + 8) != '.' || to - from - 9 > 9 || to - from - 9 < 1) {
                throw malformed("time", whole);
            }
            int digits = to - from - 9;
            nanos = Integer.parseInt(s, from + 9, to, 10);
            for (int i = digits; i < 9; i++) {
                nanos *= 10;
            }
        }
        if (minutes > 59 || seconds > 59 || hours > 24 || (hours == 24 && (minutes | seconds | nanos) != 0)) {
            throw malformed("time", whole);
        }
        return Duration.ofSeconds(hours * 3600 + minutes * 60 + seconds, nanos);
    }

    /** {@code +HH}, {@code +HH:MM} or {@code +HH:MM:SS}. */
    private static ZoneOffset offset(String s, String whole) {
        int sign = s.charAt(0) == '-' ? -1 : 1;
        String[] parts = s.substring(1).split(":");
        if (parts.length > 3 || parts[0].length() != 2) {
            throw malformed("time zone offset", whole);
        }
        int seconds = Integer.parseInt(parts[0]) * 3600;
        if (parts.length > 1) {
            seconds += Integer.parseInt(parts[1]) * 60;
        }
        if (parts.length > 2) {
            seconds += Integer.parseInt(parts[2]);
        }
        return ZoneOffset.ofTotalSeconds(sign * seconds);
    }

    private static IllegalArgumentException malformed(String what, String whole) {
        // the text is a row value: it must not reach an error message
        return new PgTextException("not a " + what + " in PostgreSQL's ISO output (" + whole.length() + " characters)");
    }
}
