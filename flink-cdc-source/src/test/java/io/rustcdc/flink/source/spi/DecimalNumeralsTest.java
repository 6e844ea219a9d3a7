package io.rustcdc.flink.source.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.testing.Seeds;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random numerals of 1 to 40 digits, and texts one character away from one, must read as {@code new
 * BigDecimal(text)} reads them (equal unscaled value and scale), or fail as it fails: read in place in the
 * middle of other bytes, and from a String (a driver's text).
 */
class DecimalNumeralsTest {
    private static final String MUTATIONS = "0123456789.-+eE x\u00e9\u0100\u0661?";
    private static final String AROUND = "0123456789.-";

    @Test
    void readsAsBigDecimalReads() {
        Seeds.forEach("numerals.seed", "numerals.runs", 3, random -> {
            for (int i = 0; i < 50_000; i++) {
                String text = numeral(random);
                assertReadsAsBigDecimal(text, random);
                char[] mutated = text.toCharArray();
                mutated[random.nextInt(mutated.length)] = MUTATIONS.charAt(random.nextInt(MUTATIONS.length()));
                assertReadsAsBigDecimal(new String(mutated), random);
            }
        });
    }

    @Test
    void edges() {
        for (String text : new String[] {"0", "-0", "-0.000", "999999999999999999", "-999999999999999999",
                "9999999999999999999", "99999999999999999.9", "0.000000000000000001", "1e5", "007.50", "+1", ".5", "5.",
                "-", "", ".", "1..2", "--1", "NaN", "\u0661\u0662.5", "1?2", "\u0100"}) {
            assertReadsAsBigDecimal(text, new Random(text.hashCode()));
        }
        assertThat(inPlace("-123.4500", new Random(1)).scale()).isEqualTo(4);
        assertThatThrownBy(() -> inPlace("12a", new Random(2))).isInstanceOf(NumberFormatException.class);
    }

    private static void assertReadsAsBigDecimal(String text, Random random) {
        BigDecimal expected;
        try {
            expected = new BigDecimal(text);
        } catch (NumberFormatException e) {
            assertThatThrownBy(() -> inPlace(text, random)).as(text).isInstanceOf(NumberFormatException.class);
            assertThatThrownBy(() -> DecimalNumerals.parse(text)).as(text).isInstanceOf(NumberFormatException.class);
            return;
        }
        assertThat(inPlace(text, random)).as(text).isEqualTo(expected);
        assertThat(DecimalNumerals.parse(text)).as(text).isEqualTo(expected);
    }

    private static BigDecimal inPlace(String text, Random random) {
        byte[] value = text.getBytes(StandardCharsets.UTF_8);
        int before = random.nextInt(4);
        byte[] buffer = new byte[before + value.length + random.nextInt(4)];
        for (int i = 0; i < buffer.length; i++) {
            buffer[i] = (byte) AROUND.charAt(random.nextInt(AROUND.length()));
        }
        System.arraycopy(value, 0, buffer, before, value.length);
        return DecimalNumerals.parse(buffer, before, before + value.length);
    }

    /** A numeral of 1 to 40 digits, with or without a sign and a fraction, sometimes with leading zeros. */
    private static String numeral(Random random) {
        int digits = 1 + (random.nextBoolean() ? random.nextInt(19) : random.nextInt(40));
        StringBuilder s = new StringBuilder(random.nextBoolean() ? "-" : "");
        for (int i = 0; i < digits; i++) {
            s.append((char) ('0' + random.nextInt(10)));
        }
        if (digits > 1 && random.nextBoolean()) {
            s.insert(s.length() - 1 - random.nextInt(digits - 1), '.');
        }
        return s.toString();
    }
}
