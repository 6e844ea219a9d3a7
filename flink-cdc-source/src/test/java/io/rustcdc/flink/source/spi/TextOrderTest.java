package io.rustcdc.flink.source.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Code point order is UTF-8's byte order; padded comparison is SQL's PAD SPACE. */
class TextOrderTest {
    private static final String[] PARTS = {"", "a", "A", "é", " ", "\t", "\uE000", "\uFFFF", "\uD83D\uDE00",
        "\uD800\uDC00", "\u00A0", "z", "\u0000"};

    @Test
    void codePointOrderIsTheOrderOfUtf8Bytes() {
        long seed = Long.getLong("rustcdc.textorder.seed", System.nanoTime());
        System.out.println("TextOrderTest seed " + seed + " (replay with -Drustcdc.textorder.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int i = 0; i < 20_000; i++) {
            String a = text(random);
            String b = text(random);
            int expected = Integer.signum(Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8),
                    b.getBytes(StandardCharsets.UTF_8)));
            assertThat(Integer.signum(TextOrder.compareCodePoints(a, a.length(), b, b.length())))
                    .as("'%s' vs '%s' (seed %d)", a, b, seed).isEqualTo(expected);
            // padded: as if the shorter were filled with spaces to the longer's length
            int length = Math.max(a.length(), b.length());
            String pa = a + " ".repeat(length - a.length());
            String pb = b + " ".repeat(length - b.length());
            int padded = Integer.signum(Arrays.compareUnsigned(pa.getBytes(StandardCharsets.UTF_8),
                    pb.getBytes(StandardCharsets.UTF_8)));
            assertThat(Integer.signum(TextOrder.comparePadded(a, b, ' '))).as("padded '%s' vs '%s' (seed %d)", a, b, seed)
                    .isEqualTo(padded);
        }
    }

    @Test
    void examples() {
        assertThat(TextOrder.compareCodePoints("\uFFFF", 1, "\uD83D\uDE00", 2)).as("U+FFFF < U+1F600").isNegative();
        assertThat("\uFFFF".compareTo("\uD83D\uDE00")).as("not so in UTF-16").isPositive();
        assertThat(TextOrder.comparePadded("a", "a  ", ' ')).isZero();
        assertThat(TextOrder.comparePadded("a\t", "a", ' ')).isNegative();
        assertThat(TextOrder.comparePadded("a", "a\t", ' ')).isPositive();
        assertThat(TextOrder.comparePadded("", " ", ' ')).isZero();
        assertThat(TextOrder.lengthWithoutTrailing("ab  ", ' ')).isEqualTo(2);
        assertThat(TextOrder.lengthWithoutTrailing("   ", ' ')).isZero();
    }

    private static String text(Random random) {
        StringBuilder s = new StringBuilder();
        int parts = random.nextInt(5);
        for (int i = 0; i < parts; i++) {
            s.append(PARTS[random.nextInt(PARTS.length)]);
        }
        return s.toString();
    }
}
