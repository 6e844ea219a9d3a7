package io.rustcdc.flink.source.json;

import io.rustcdc.flink.source.model.ValueType;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * The native text of temporal values, written as a quoted JSON string straight into a {@link
 * JsonBuffer} (digits, no intermediate String): ISO dates ({@code YYYY-MM-DD}, astronomical years
 * beyond 0001-9999 as {@link LocalDate#toString()} prints them), times as {@code [-]HH:MM:SS[.f]} with
 * hours past 24 for durations, timestamps without zone, instants in UTC with {@code Z}. Fractional
 * digits follow the declared precision; an undeclared precision prints as many as the value needs.
 * Digits are never dropped.
 */
final class TemporalText {
    private TemporalText() {}

    static void date(JsonBuffer out, LocalDate date) {
        out.ascii('"');
        writeDate(out, date);
        out.ascii('"');
    }

    static void time(JsonBuffer out, Duration d, int precision) {
        out.ascii('"');
        if (d.isNegative()) {
            out.ascii('-');
            d = d.negated();
        }
        long seconds = d.getSeconds();
        out.padded(seconds / 3600, 2).ascii(':').padded(seconds / 60 % 60, 2).ascii(':').padded(seconds % 60, 2);
        fraction(out, d.getNano(), precision);
        out.ascii('"');
    }

    static void timestamp(JsonBuffer out, LocalDateTime t, int precision) {
        out.ascii('"');
        writeTimestamp(out, t, precision);
        out.ascii('"');
    }

    static void instant(JsonBuffer out, Instant i, int precision) {
        // ofEpochSecond: ofInstant would build the offset's zone rules anew for every value
        LocalDateTime utc = LocalDateTime.ofEpochSecond(i.getEpochSecond(), i.getNano(), ZoneOffset.UTC);
        out.ascii('"');
        writeTimestamp(out, utc, precision);
        out.ascii('Z').ascii('"');
    }

    private static void writeTimestamp(JsonBuffer out, LocalDateTime t, int precision) {
        writeDate(out, t.toLocalDate());
        out.ascii('T').padded(t.getHour(), 2).ascii(':').padded(t.getMinute(), 2).ascii(':').padded(t.getSecond(), 2);
        fraction(out, t.getNano(), precision);
    }

    private static void writeDate(JsonBuffer out, LocalDate date) {
        int year = date.getYear();
        if (year >= 0 && year <= 9999) {
            out.padded(year, 4).ascii('-').padded(date.getMonthValue(), 2).ascii('-').padded(date.getDayOfMonth(), 2);
        } else {
            out.rawAscii(date.toString()); // a sign and wider years, as LocalDate prints them (ASCII only)
        }
    }

    private static void fraction(JsonBuffer out, int nanos, int precision) {
        int digits = 9;
        int n = nanos;
        while (digits > 0 && n % 10 == 0) {
            n /= 10;
            digits--;
        }
        // never fewer digits than the value has; otherwise as many as declared
        int shown = precision == ValueType.UNSPECIFIED_PRECISION ? digits : Math.max(digits, precision);
        if (shown == 0) {
            return;
        }
        int value = nanos;
        for (int i = shown; i < 9; i++) {
            value /= 10; // only zeros are dropped: shown is at least the digits the value has
        }
        out.ascii('.').padded(value, shown);
    }
}
