package io.rustcdc.flink.source.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.testing.Seeds;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link TemporalText}'s digits, written straight into the buffer, against text built another way from
 * {@code java.time}'s own printing, for random values of every range the types allow (years from before
 * year 0 to beyond 9999, durations of either sign past 24 hours) and every precision, undeclared too.
 * Seeds from {@code -Dtemporal.seed=N[,M]}; {@code -Dtemporal.runs} new ones otherwise.
 */
class TemporalTextTest {
    private static final int VALUES = 10_000;

    @Test
    void randomValuesPrintAsJavaTimeDoes() {
        Seeds.forEach("temporal.seed", "temporal.runs", 2, random -> {
            for (int i = 0; i < VALUES; i++) {
                int precision = random.nextInt(11) - 1; // -1: undeclared
                int p = precision < 0 ? ValueType.UNSPECIFIED_PRECISION : precision;
                LocalDateTime t = LocalDateTime.ofEpochSecond(seconds(random), nanos(random), ZoneOffset.UTC);
                String clock = clock(t.getHour(), t.getMinute(), t.getSecond()) + fraction(t.getNano(), p);
                check("timestamp " + t, p, written(b -> TemporalText.timestamp(b, t, p)),
                        quoted(t.toLocalDate() + "T" + clock));
                Instant instant = t.toInstant(ZoneOffset.UTC);
                check("instant " + instant, p, written(b -> TemporalText.instant(b, instant, p)),
                        quoted(instant.atOffset(ZoneOffset.UTC).toLocalDate() + "T" + clock + "Z"));
                LocalDate date = t.toLocalDate();
                check("date " + date, p, written(b -> TemporalText.date(b, date)), quoted(date.toString()));
                Duration d = Duration.ofSeconds(random.nextInt(2 * 1_000_000) - 1_000_000, nanos(random));
                check("time " + d, p, written(b -> TemporalText.time(b, d, p)), quoted(time(d, p)));
            }
        });
    }

    @Test
    void edgesOfTheFourDigitYears() {
        for (int year : new int[] {-1, 0, 1, 999, 1000, 9999, 10000}) {
            LocalDateTime t = LocalDateTime.of(year, 1, 2, 3, 4, 5, 60);
            assertThat(written(b -> TemporalText.timestamp(b, t, 9)))
                    .isEqualTo(quoted(t.toLocalDate() + "T03:04:05.000000060"));
        }
        assertThat(written(b -> TemporalText.timestamp(b, LocalDateTime.of(999, 1, 2, 3, 4), 0)))
                .isEqualTo("\"0999-01-02T03:04:00\"");
        assertThat(written(b -> TemporalText.timestamp(b, LocalDateTime.of(10000, 1, 2, 3, 4), 0)))
                .isEqualTo("\"+10000-01-02T03:04:00\"");
    }

    private static void check(String value, int precision, String written, String expected) {
        if (!written.equals(expected)) {
            assertThat(written).as(value + ", precision " + precision).isEqualTo(expected);
        }
    }

    private interface Write {
        void to(JsonBuffer b);
    }

    private static String written(Write w) {
        JsonBuffer b = new JsonBuffer(8).reset(false);
        w.to(b);
        return b.toString();
    }

    private static long seconds(Random random) {
        switch (random.nextInt(3)) {
            case 0: // around now
                return 1_700_000_000L + random.nextInt(200_000_000);
            case 1: // years 0 to 9999
                return -62_167_219_200L + (long) (random.nextDouble() * 315_537_897_600L);
            default: // the whole range LocalDateTime prints, years -999,999,999 to 999,999,999 but kept narrower
                return (long) ((random.nextDouble() * 2 - 1) * 3.1e16);
        }
    }

    private static int nanos(Random random) {
        switch (random.nextInt(4)) {
            case 0:
                return 0;
            case 1:
                return random.nextInt(1000) * 1_000_000;
            case 2:
                return random.nextInt(1_000_000) * 1000;
            default:
                return random.nextInt(1_000_000_000);
        }
    }

    private static String quoted(String s) {
        return "\"" + s + "\"";
    }

    private static String clock(long h, long m, long s) {
        return two(h) + ":" + two(m) + ":" + two(s);
    }

    private static String two(long n) {
        return n < 10 ? "0" + n : Long.toString(n);
    }

    private static String time(Duration d, int precision) {
        Duration abs = d.abs();
        long s = abs.getSeconds();
        return (d.isNegative() ? "-" : "") + clock(s / 3600, s / 60 % 60, s % 60) + fraction(abs.getNano(), precision);
    }

    /** The fraction by BigDecimal: the value's own digits, padded with zeros to the precision. */
    private static String fraction(int nanos, int precision) {
        String digits = nanos == 0 ? "" : BigDecimal.valueOf(nanos, 9).stripTrailingZeros().toPlainString().substring(2);
        int shown = precision == ValueType.UNSPECIFIED_PRECISION ? digits.length() : Math.max(digits.length(), precision);
        return shown == 0 ? "" : "." + (digits + "000000000").substring(0, shown);
    }
}
