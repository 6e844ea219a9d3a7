package io.rustcdc.flink.postgres.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.testing.Seeds;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's ISO output, printed here from java.time values across PostgreSQL's whole range (4713 BC to
 * 294276 AD for timestamps, to 5874897 AD for dates), must parse back to exactly those values; any text one
 * character away from it must parse or fail as a value that does not decode, never as another error.
 */
class PgTemporalTest {
    private static final long FIRST_DAY = LocalDate.of(-4712, 1, 1).toEpochDay();
    private static final long LAST_TIMESTAMP_DAY = LocalDate.of(294276, 12, 31).toEpochDay();
    private static final long LAST_DATE_DAY = LocalDate.of(5874897, 12, 31).toEpochDay();
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;
    /** PostgreSQL's largest UTC offset, 15:59:59. */
    private static final int MAX_OFFSET = 15 * 3600 + 59 * 60 + 59;
    private static final String MUTATIONS = "0123456789-+:. BCx";

    @Test
    void parsesWhatPostgresPrintsExactly() {
        Seeds.forEach("pgtemporal.seed", "pgtemporal.runs", 3, random -> {
            for (int i = 0; i < 20_000; i++) {
                LocalDate date = LocalDate.ofEpochDay(day(random, LAST_DATE_DAY));
                assertParses(random, print(date), PgTemporal::date, date);

                long nanoOfDay = random.nextInt(50) == 0 ? NANOS_PER_DAY : nanoOfDay(random);
                assertParses(random, time(random, nanoOfDay), PgTemporal::time, Duration.ofNanos(nanoOfDay));

                LocalDateTime local = LocalDate.ofEpochDay(day(random, LAST_TIMESTAMP_DAY)).atStartOfDay()
                        .plusNanos(nanoOfDay(random));
                assertParses(random, timestamp(random, local, ""), PgTemporal::timestamp, local);

                int offset = offset(random);
                Instant instant = Instant.ofEpochSecond(local.toEpochSecond(ZoneOffset.UTC) - offset,
                        local.getNano());
                assertParses(random, timestamp(random, local, offset(offset)), PgTemporal::timestampTz, instant);
            }
        });
    }

    @Test
    void offsetsBeyondEighteenHoursAndMalformedFieldsFail() {
        for (String text : new String[] {"2024-03-30 23:30:00+18:00:01", "2024-03-30 23:30:00+05:60",
                "2024-03-30 23:30:00+5", "2024-03-30 23:30:00+05:3", "2024-03-30 23:30:00.1234567890+00",
                "2024-03-30 23:30:00.+00", "2024-03-30 23:30+00", "2024-3-30 23:30:00+00", "-2024-03-30 23:30:00+00",
                "2024-03-30 BC", "1234567890-01-01 00:00:00+00", "2024-03-30 23:30:00+00:00:0x"}) {
            assertThatThrownBy(() -> InPlaceText.decode(PgTemporal::timestampTz, text))
                    .as(text).isInstanceOf(PgTextException.class)
                    .hasMessageNotContaining("2024");
        }
        assertThatThrownBy(() -> InPlaceText.decode(PgTemporal::date, "2023-02-29")).isInstanceOf(DateTimeException.class);
        assertThatThrownBy(() -> InPlaceText.decode(PgTemporal::timestamp, "2024-03-30")).isInstanceOf(PgTextException.class);
        assertThatThrownBy(() -> InPlaceText.decode(PgTemporal::time, "12:00:00.")).isInstanceOf(PgTextException.class);
    }

    private static void assertParses(Random random, String text, TextDecoder.InPlace parser, Object expected) {
        assertThat(InPlaceText.decode(parser, text, random)).as(text).isEqualTo(expected);
        char[] mutated = text.toCharArray();
        mutated[random.nextInt(mutated.length)] = MUTATIONS.charAt(random.nextInt(MUTATIONS.length()));
        String other = new String(mutated);
        try {
            InPlaceText.decode(parser, other, random);
        } catch (PgTextException e) {
            assertThat(e.getMessage()).as(other).doesNotContain(other.substring(0, Math.min(4, other.length())));
        } catch (DateTimeException e) {
            // a day the month does not have, or a year out of range: RowDecoder reports it without the value
        }
    }

    /** A day from 4713 BC to {@code last}: anywhere, around 1 BC / 1 AD, or in the years users store. */
    private static long day(Random random, long last) {
        switch (random.nextInt(3)) {
            case 0:
                return FIRST_DAY + random.nextLong(last - FIRST_DAY + 1);
            case 1:
                return LocalDate.of(0, 1, 1).toEpochDay() + random.nextInt(4 * 366) - 2 * 366;
            default:
                return LocalDate.of(1900, 1, 1).toEpochDay() + random.nextInt(200 * 366);
        }
    }

    /** Whole seconds, microseconds (PostgreSQL's precision) or nanoseconds. */
    private static long nanoOfDay(Random random) {
        long nanos = random.nextLong(NANOS_PER_DAY);
        switch (random.nextInt(3)) {
            case 0:
                return nanos - nanos % 1_000_000_000L;
            case 1:
                return nanos - nanos % 1_000L;
            default:
                return nanos;
        }
    }

    private static int offset(Random random) {
        int seconds = random.nextInt(2 * MAX_OFFSET + 1) - MAX_OFFSET;
        switch (random.nextInt(3)) {
            case 0:
                return seconds - seconds % 3600;
            case 1:
                return seconds - seconds % 60;
            default:
                return seconds;
        }
    }

    /** As PostgreSQL prints it: year padded to 4 digits, {@code BC} for years up to 0. */
    private static String print(LocalDate date) {
        int year = date.getYear();
        return String.format("%04d-%02d-%02d%s", year > 0 ? year : 1 - year, date.getMonthValue(),
                date.getDayOfMonth(), year > 0 ? "" : " BC");
    }

    private static String timestamp(Random random, LocalDateTime local, String offset) {
        String date = print(local.toLocalDate());
        String era = date.endsWith(" BC") ? " BC" : "";
        return date.substring(0, date.length() - era.length()) + " "
                + time(random, local.toLocalTime().toNanoOfDay()) + offset + era;
    }

    /** {@code HH:MM:SS}, then the fraction without trailing zeros, sometimes padded with zeros to 9 digits. */
    private static String time(Random random, long nanoOfDay) {
        String whole = nanoOfDay == NANOS_PER_DAY ? "24:00:00"
                : LocalTime.ofNanoOfDay(nanoOfDay - nanoOfDay % 1_000_000_000L).toString();
        if (whole.length() == 5) {
            whole += ":00"; // LocalTime leaves out zero seconds
        }
        String fraction = String.format("%09d", nanoOfDay % 1_000_000_000L);
        int digits = 9;
        while (digits > 0 && fraction.charAt(digits - 1) == '0') {
            digits--;
        }
        if (digits > 0 || random.nextInt(10) == 0) {
            digits = digits + random.nextInt(10 - Math.max(digits, 1));
            return whole + "." + fraction.substring(0, Math.max(digits, 1));
        }
        return whole;
    }

    /** {@code +HH}, then {@code :MM} and {@code :SS} where not zero, as PostgreSQL prints offsets. */
    private static String offset(int seconds) {
        int abs = Math.abs(seconds);
        String text = String.format("%s%02d", seconds < 0 ? "-" : "+", abs / 3600);
        if (abs % 3600 != 0) {
            text += String.format(":%02d", abs / 60 % 60);
        }
        if (abs % 60 != 0) {
            text += String.format(":%02d", abs % 60);
        }
        return text;
    }
}
