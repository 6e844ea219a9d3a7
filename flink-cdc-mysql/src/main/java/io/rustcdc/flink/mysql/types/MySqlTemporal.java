package io.rustcdc.flink.mysql.types;

import io.rustcdc.flink.source.model.SpecialValue;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.apache.flink.annotation.Internal;

/**
 * MySQL dates, times and datetimes from their parts, the same for the snapshot's text and the
 * binlog's packed values. Dates with zero parts (and invalid dates a lax SQL mode let in) stay as
 * the server writes them: {@code 0000-00-00}, {@code 2024-00-05 00:00:00}.
 */
@Internal
public final class MySqlTemporal {
    private MySqlTemporal() {}

    public static Object date(int year, int month, int day) {
        if (month == 0 || day == 0) {
            return SpecialValue.zeroDate(dateText(year, month, day));
        }
        try {
            return LocalDate.of(year, month, day);
        } catch (DateTimeException e) {
            return SpecialValue.zeroDate(dateText(year, month, day));
        }
    }

    /** A DATETIME: a {@link LocalDateTime}, or the zero date as written. */
    public static Object dateTime(int year, int month, int day, int hour, int minute, int second, int micros) {
        Object date = date(year, month, day);
        if (date instanceof LocalDate) {
            return ((LocalDate) date).atTime(hour, minute, second, micros * 1000);
        }
        return SpecialValue.zeroDate(dateText(year, month, day) + " " + two(hour) + ":" + two(minute) + ":"
                + two(second) + (micros == 0 ? "" : "." + String.format("%06d", micros)));
    }

    /** A TIMESTAMP from seconds since the epoch: an {@link Instant}, or the zero timestamp (0). */
    public static Object timestamp(long epochSeconds, int micros) {
        if (epochSeconds == 0 && micros == 0) {
            return SpecialValue.zeroDate("0000-00-00 00:00:00");
        }
        return Instant.ofEpochSecond(epochSeconds, micros * 1000L);
    }

    /** A TIMESTAMP read as UTC text: an {@link Instant}, or the zero timestamp. */
    public static Object timestampFromUtc(String text) {
        Object local = dateTimeText(text);
        return local instanceof LocalDateTime ? ((LocalDateTime) local).toInstant(ZoneOffset.UTC)
                : SpecialValue.zeroDate("0000-00-00 00:00:00");
    }

    public static Duration time(boolean negative, long hours, int minutes, int seconds, int micros) {
        Duration d = Duration.ofHours(hours).plusMinutes(minutes).plusSeconds(seconds).plusNanos(micros * 1000L);
        return negative ? d.negated() : d;
    }

    /** {@code YYYY-MM-DD}. */
    public static Object dateText(String text) {
        return date(number(text, 0, 4), number(text, 5, 7), number(text, 8, 10));
    }

    /** {@code YYYY-MM-DD HH:MM:SS[.ffffff]}. */
    public static Object dateTimeText(String text) {
        return dateTime(number(text, 0, 4), number(text, 5, 7), number(text, 8, 10), number(text, 11, 13),
                number(text, 14, 16), number(text, 17, 19), micros(text, 19));
    }

    /** {@code [-]H...H:MM:SS[.ffffff]}. */
    public static Duration timeText(String text) {
        boolean negative = text.startsWith("-");
        int start = negative ? 1 : 0;
        int colon = text.indexOf(':', start);
        return time(negative, number(text, start, colon), number(text, colon + 1, colon + 3),
                number(text, colon + 4, colon + 6), micros(text, colon + 6));
    }

    /** The microseconds of a fraction of 1 to 6 digits starting with its dot at {@code dot}, 0 when there is none. */
    private static int micros(String text, int dot) {
        if (text.length() <= dot + 1 || text.charAt(dot) != '.') {
            return 0;
        }
        int digits = text.length() - dot - 1;
        if (digits > 6) {
            throw new NumberFormatException("a fraction of more than 6 digits");
        }
        int micros = number(text, dot + 1, text.length());
        for (int i = digits; i < 6; i++) {
            micros *= 10;
        }
        return micros;
    }

    /**
     * The decimal digits of {@code text} from {@code from} to {@code to}, read in place (a snapshot reads
     * several per temporal value).
     *
     * @throws NumberFormatException when there are none, more than 9, or anything but digits
     */
    private static int number(String text, int from, int to) {
        if (from < 0 || to > text.length() || to <= from || to - from > 9) {
            throw new NumberFormatException("not 1 to 9 digits at " + from + " of " + text.length() + " characters");
        }
        int value = 0;
        for (int i = from; i < to; i++) {
            int digit = text.charAt(i) - '0';
            if (digit < 0 || digit > 9) {
                throw new NumberFormatException("not a digit at " + i + " of " + text.length() + " characters");
            }
            value = value * 10 + digit;
        }
        return value;
    }

    private static String dateText(int year, int month, int day) {
        return String.format("%04d-%02d-%02d", year, month, day);
    }

    private static String two(int v) {
        return v < 10 ? "0" + v : String.valueOf(v);
    }
}
