package io.rustcdc.flink.mysql.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.testing.Seeds;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * The server's text of dates, times, datetimes and UTC timestamps ({@code CAST(... AS CHAR)}: a
 * fraction of exactly the column's 0 to 6 digits), printed here from java.time values over the
 * types' whole ranges, must parse back to exactly those values; zero and invalid dates stay as written.
 */
class MySqlTemporalTest {
    private static final long FIRST_DAY = LocalDate.of(0, 1, 1).toEpochDay();
    private static final long LAST_DAY = LocalDate.of(9999, 12, 31).toEpochDay();
    private static final long MICROS_PER_DAY = 86_400_000_000L;

    @Test
    void parsesWhatTheServerPrintsExactly() {
        Seeds.forEach("mysqltemporal.seed", "mysqltemporal.runs", 3, random -> {
            for (int i = 0; i < 20_000; i++) {
                LocalDate date = LocalDate.ofEpochDay(FIRST_DAY + random.nextLong(LAST_DAY - FIRST_DAY + 1));
                assertThat(MySqlTemporal.dateText(date.toString())).isEqualTo(date);

                int fsp = random.nextInt(7);
                long micros = random.nextLong(MICROS_PER_DAY);
                micros -= micros % (long) Math.pow(10, 6 - fsp);
                LocalDateTime local = date.atStartOfDay().plusNanos(micros * 1000);
                String text = String.format("%04d-%02d-%02d %02d:%02d:%02d", local.getYear(), local.getMonthValue(),
                        local.getDayOfMonth(), local.getHour(), local.getMinute(), local.getSecond())
                        + fraction(micros % 1_000_000, fsp);
                assertThat(MySqlTemporal.dateTimeText(text)).as(text).isEqualTo(local);
                assertThat(MySqlTemporal.timestampFromUtc(text)).as(text).isEqualTo(local.toInstant(ZoneOffset.UTC));

                long hours = random.nextInt(839);
                long timeMicros = ((hours * 60 + random.nextInt(60)) * 60 + random.nextInt(60)) * 1_000_000
                        + micros % 1_000_000;
                boolean negative = random.nextBoolean() && timeMicros != 0;
                String time = String.format("%s%02d:%02d:%02d", negative ? "-" : "", hours, timeMicros / 60_000_000 % 60,
                        timeMicros / 1_000_000 % 60) + fraction(timeMicros % 1_000_000, fsp);
                Duration expected = Duration.ofNanos(timeMicros * 1000);
                assertThat(MySqlTemporal.timeText(time)).as(time).isEqualTo(negative ? expected.negated() : expected);
            }
        });
    }

    @Test
    void zeroAndInvalidDatesStayAsWritten() {
        assertThat(MySqlTemporal.dateText("0000-00-00")).isEqualTo(SpecialValue.zeroDate("0000-00-00"));
        assertThat(MySqlTemporal.dateText("2024-02-30")).isEqualTo(SpecialValue.zeroDate("2024-02-30"));
        assertThat(MySqlTemporal.dateTimeText("2024-00-05 00:00:00.5"))
                .isEqualTo(SpecialValue.zeroDate("2024-00-05 00:00:00.500000"));
        assertThat(MySqlTemporal.timestampFromUtc("0000-00-00 00:00:00"))
                .isEqualTo(SpecialValue.zeroDate("0000-00-00 00:00:00"));
    }

    @Test
    void malformedTextFailsWithoutQuotingIt() {
        for (String text : new String[] {"2024-01-01 00:00:00.1234567", "2024-01-01 0a:00:00", "2024-1-01 00:00:00",
                "+024-01-01 00:00:00"}) {
            assertThatThrownBy(() -> MySqlTemporal.dateTimeText(text)).as(text).isInstanceOf(NumberFormatException.class)
                    .hasMessageNotContaining("2024").hasMessageNotContaining("024-");
        }
        assertThatThrownBy(() -> MySqlTemporal.timeText("838")).isInstanceOf(NumberFormatException.class);
    }

    /** A dot and exactly {@code fsp} digits of {@code micros}, as the server prints a column of that precision. */
    private static String fraction(long micros, int fsp) {
        return fsp == 0 ? "" : "." + String.format("%06d", micros).substring(0, fsp);
    }
}
