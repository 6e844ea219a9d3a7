package io.rustcdc.flink.source.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.testing.Seeds;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link DecimalText} against {@link BigDecimal#toPlainString()} for random decimals: negative, zero (of every
 * scale), unscaled values up to 18 digits and far beyond, scales from large negative to large positive, made
 * the ways a connector makes them. Seeds from {@code -Ddecimal.seed=N[,M]}; {@code -Ddecimal.runs} new ones
 * otherwise.
 */
class DecimalTextTest {
    private static final int VALUES = 50_000;

    @Test
    void randomDecimalsPrintAsToPlainString() {
        Seeds.forEach("decimal.seed", "decimal.runs", 2, random -> {
            for (int i = 0; i < VALUES; i++) {
                BigDecimal v = decimal(random);
                String written = written(v);
                String expected = "\"" + v.toPlainString() + "\"";
                if (!written.equals(expected)) {
                    assertThat(written).as("unscaled " + v.unscaledValue() + " scale " + v.scale()).isEqualTo(expected);
                }
            }
        });
    }

    @Test
    void edges() {
        String[] texts = {"0", "0.0", "0E+5", "0E-18", "0E-19", "-0.001", "1E+18", "-1E+19", "999999999999999999",
            "-999999999999999999", "1000000000000000000", "0.999999999999999999", "-0.000000000000000001",
            "123456789012345678.9", "9223372036854775807", "-9223372036854775808", "12345.6789", "-12345.6789"};
        for (String text : texts) {
            BigDecimal v = new BigDecimal(text);
            assertThat(written(v)).as(text).isEqualTo("\"" + v.toPlainString() + "\"");
        }
        assertThat(written(new BigDecimal("-0.050"))).isEqualTo("\"-0.050\"");
        assertThat(written(new BigDecimal("1.5E+3"))).isEqualTo("\"1500\"");
    }

    private static String written(BigDecimal v) {
        JsonBuffer b = new JsonBuffer(4).reset(false);
        DecimalText.write(b, v);
        return b.toString();
    }

    private static BigDecimal decimal(Random random) {
        BigInteger unscaled = switch (random.nextInt(6)) {
            case 0 -> BigInteger.ZERO;
            case 1 -> BigInteger.valueOf(random.nextInt(2001) - 1000);
            case 2 -> BigInteger.valueOf(random.nextLong() % 1_000_000_000_000_000_000L); // up to 18 digits
            case 3 -> BigInteger.valueOf(random.nextLong()); // up to 19 digits
            case 4 -> BigInteger.TEN.pow(random.nextInt(20)).subtract(BigInteger.valueOf(random.nextInt(2)));
            default -> new BigInteger(1 + random.nextInt(300), random); // up to 91 digits
        };
        if (random.nextBoolean()) {
            unscaled = unscaled.negate();
        }
        int scale = switch (random.nextInt(5)) {
            case 0 -> 0;
            case 1 -> random.nextInt(7);
            case 2 -> random.nextInt(41) - 20;
            case 3 -> random.nextInt(201) - 100;
            default -> random.nextInt(4001) - 2000;
        };
        BigDecimal v = new BigDecimal(unscaled, scale);
        switch (random.nextInt(4)) {
            case 0:
                return new BigDecimal(v.toString()); // as a driver parses the server's text
            case 1:
                return v.stripTrailingZeros();
            default:
                return v;
        }
    }
}
