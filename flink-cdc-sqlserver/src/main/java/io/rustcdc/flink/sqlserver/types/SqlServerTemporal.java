package io.rustcdc.flink.sqlserver.types;

import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;

/**
 * Parses the text {@code CONVERT(varchar, value, 121)} gives for SQL Server's temporal types
 * ({@code 2026-07-20 12:34:56.1234567}, a datetimeoffset with {@code  +02:00} after it), exactly:
 * every fractional digit kept, none made up. Digits beyond the column's declared scale are refused
 * unless they are zeros (SQL Server prints smalldatetime and datetime with three).
 */
@Internal
public final class SqlServerTemporal {
    private static final Pattern DATE_TIME = Pattern.compile(
            "(\\d{4}-\\d{2}-\\d{2})(?:[ T](\\d{2}:\\d{2}:\\d{2})(?:\\.(\\d{1,9}))?)?(?: ?([+-]\\d{2}:\\d{2}))?");
    private static final Pattern TIME = Pattern.compile("(\\d{2}:\\d{2}:\\d{2})(?:\\.(\\d{1,9}))?");

    private SqlServerTemporal() {}

    public static LocalDate date(String text) {
        Matcher m = match(DATE_TIME, text, "date");
        if (m.group(2) != null || m.group(4) != null) {
            throw new IllegalArgumentException("Not a SQL Server date: '" + text + "'");
        }
        return LocalDate.parse(m.group(1));
    }

    /** A datetime2(n), datetime or smalldatetime. */
    public static LocalDateTime dateTime(String text, int scale) {
        Matcher m = match(DATE_TIME, text, "datetime");
        if (m.group(2) == null || m.group(4) != null) {
            throw new IllegalArgumentException("Not a SQL Server datetime: '" + text + "'");
        }
        return LocalDate.parse(m.group(1)).atTime(LocalTime.parse(m.group(2)).withNano(nanos(m.group(3), scale, text)));
    }

    /**
     * A datetimeoffset(n) as ISO-8601 text with its offset and the declared digits, {@code
     * 2026-07-20T12:34:56.1234567+02:00}: an instant would lose the offset the column stores.
     */
    public static String dateTimeOffset(String text, int scale) {
        Matcher m = match(DATE_TIME, text, "datetimeoffset");
        if (m.group(2) == null || m.group(4) == null) {
            throw new IllegalArgumentException("Not a SQL Server datetimeoffset: '" + text + "'");
        }
        int nanos = nanos(m.group(3), scale, text);
        ZoneOffset offset = ZoneOffset.of(m.group(4));
        LocalDateTime local = LocalDate.parse(m.group(1)).atTime(LocalTime.parse(m.group(2)).withNano(nanos));
        return local.format(DateTimeFormatter.ISO_LOCAL_DATE) + "T" + local.toLocalTime().withNano(0)
                .format(DateTimeFormatter.ISO_LOCAL_TIME) + fraction(nanos, scale) + offset.getId().replace("Z", "+00:00");
    }

    /** A time(n) as the duration since midnight. */
    public static Duration time(String text, int scale) {
        Matcher m = match(TIME, text, "time");
        return Duration.ofNanos(LocalTime.parse(m.group(1)).toNanoOfDay() + nanos(m.group(2), scale, text));
    }

    private static Matcher match(Pattern pattern, String text, String type) {
        Matcher m = pattern.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("Not a SQL Server " + type + ": '" + text + "'");
        }
        return m;
    }

    private static int nanos(String digits, int scale, String text) {
        if (digits == null) {
            return 0;
        }
        for (int i = scale; i < digits.length(); i++) {
            if (digits.charAt(i) != '0') {
                throw new IllegalArgumentException("'" + text + "' has more fractional digits than the column's "
                        + "scale " + scale);
            }
        }
        StringBuilder nine = new StringBuilder(digits);
        while (nine.length() < 9) {
            nine.append('0');
        }
        return Integer.parseInt(nine.toString());
    }

    private static String fraction(int nanos, int scale) {
        if (scale == 0) {
            return "";
        }
        return "." + String.format("%09d", nanos).substring(0, scale);
    }
}
