package io.rustcdc.flink.source.json;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import io.rustcdc.flink.source.model.ValueType;

/**
 * The native text of temporal values: ISO dates ({@code YYYY-MM-DD}, astronomical years beyond
 * 0001-9999), times as {@code [-]HH:MM:SS[.f]} with hours past 24 for durations, timestamps
 * without zone, instants in UTC with {@code Z}. Fractional digits follow the declared precision;
 * an undeclared precision prints as many as the value needs. Digits are never dropped.
 */
final class TemporalText {
    private TemporalText() {}

    static String date(LocalDate date) {
        return date.toString();
    }

    static String time(Duration d, int precision) {
        StringBuilder sb = new StringBuilder(18);
        if (d.isNegative()) {
            sb.append('-');
            d = d.negated();
        }
        long seconds = d.getSeconds();
        long hours = seconds / 3600;
        if (hours < 10) {
            sb.append('0');
        }
        sb.append(hours).append(':');
        twoDigits(sb, (int) (seconds / 60 % 60)).append(':');
        twoDigits(sb, (int) (seconds % 60));
        return fraction(sb, d.getNano(), precision).toString();
    }

    static String timestamp(LocalDateTime t, int precision) {
        return appendTimestamp(new StringBuilder(32), t, precision).toString();
    }

    static String instant(Instant i, int precision) {
        // ofEpochSecond: ofInstant would build the offset's zone rules anew for every value
        LocalDateTime utc = LocalDateTime.ofEpochSecond(i.getEpochSecond(), i.getNano(), ZoneOffset.UTC);
        return appendTimestamp(new StringBuilder(33), utc, precision).append('Z').toString();
    }

    private static StringBuilder appendTimestamp(StringBuilder sb, LocalDateTime t, int precision) {
        int year = t.getYear();
        if (year >= 1000 && year <= 9999) {
            sb.append(year).append('-');
            twoDigits(sb, t.getMonthValue()).append('-');
            twoDigits(sb, t.getDayOfMonth());
        } else {
            sb.append(t.toLocalDate()); // signed and wider years as LocalDate prints them
        }
        sb.append('T');
        twoDigits(sb, t.getHour()).append(':');
        twoDigits(sb, t.getMinute()).append(':');
        twoDigits(sb, t.getSecond());
        return fraction(sb, t.getNano(), precision);
    }

    private static StringBuilder twoDigits(StringBuilder sb, int n) {
        if (n < 10) {
            sb.append('0');
        }
        return sb.append(n);
    }

    private static StringBuilder fraction(StringBuilder sb, int nanos, int precision) {
        int digits = 9;
        int n = nanos;
        while (digits > 0 && n % 10 == 0) {
            n /= 10;
            digits--;
        }
        // never fewer digits than the value has; otherwise as many as declared
        int shown = precision == ValueType.UNSPECIFIED_PRECISION ? digits : Math.max(digits, precision);
        if (shown == 0) {
            return sb;
        }
        String all = Integer.toString(1_000_000_000 + nanos).substring(1);
        return sb.append('.').append(all, 0, shown);
    }
}
