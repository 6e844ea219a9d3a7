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
        return date(Integer.parseInt(text.substring(0, 4)), Integer.parseInt(text.substring(5, 7)),
                Integer.parseInt(text.substring(8, 10)));
    }

    /** {@code YYYY-MM-DD HH:MM:SS[.ffffff]}. */
    public static Object dateTimeText(String text) {
        return dateTime(Integer.parseInt(text.substring(0, 4)), Integer.parseInt(text.substring(5, 7)),
                Integer.parseInt(text.substring(8, 10)), Integer.parseInt(text.substring(11, 13)),
                Integer.parseInt(text.substring(14, 16)), Integer.parseInt(text.substring(17, 19)),
                micros(text, 19));
    }

    /** {@code [-]H...H:MM:SS[.ffffff]}. */
    public static Duration timeText(String text) {
        boolean negative = text.startsWith("-");
        int start = negative ? 1 : 0;
        int colon = text.indexOf(':', start);
        return time(negative, Long.parseLong(text.substring(start, colon)),
                Integer.parseInt(text.substring(colon + 1, colon + 3)),
                Integer.parseInt(text.substring(colon + 4, colon + 6)), micros(text, colon + 6));
    }

    /** The microseconds of a fraction starting with its dot at {@code dot}, 0 when there is none. */
    private static int micros(String text, int dot) {
        if (text.length() <= dot + 1 || text.charAt(dot) != '.') {
            return 0;
        }
        String digits = (text.substring(dot + 1) + "000000").substring(0, 6);
        return Integer.parseInt(digits);
    }

    private static String dateText(int year, int month, int day) {
        return String.format("%04d-%02d-%02d", year, month, day);
    }

    private static String two(int v) {
        return v < 10 ? "0" + v : String.valueOf(v);
    }
}
