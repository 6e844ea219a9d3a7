package io.rustcdc.flink.source.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link DenseKeyChunks#end} and {@link DenseKeyChunks#dense} against the same arithmetic in BigIntegers, on random
 * keys drawn near both ends of the long's range and around zero, seed printed (replay with {@code
 * -Drustcdc.chunks.seed=<seed>}).
 */
class DenseKeyChunksTest {
    @Test
    void endsAgreeWithExactArithmetic() {
        Random random = seeded();
        for (int i = 0; i < 200_000; i++) {
            long first = near(random);
            long last = random.nextBoolean() ? near(random) : first + random.nextInt(100);
            if (last < first) {
                last = first;
            }
            int chunkSize = random.nextInt(4) == 0 ? 1 + random.nextInt(Integer.MAX_VALUE) : 1 + random.nextInt(100);
            BigInteger exact = BigInteger.valueOf(first).add(BigInteger.valueOf(chunkSize - 1L));
            Long end = DenseKeyChunks.end(first, last, chunkSize);
            String what = "first " + first + ", last " + last + ", chunk size " + chunkSize;
            if (exact.compareTo(BigInteger.valueOf(last)) >= 0) {
                assertThat(end).as(what + ": every key up to the last in the chunk").isNull();
            } else {
                assertThat(end).as(what).isNotNull();
                assertThat(BigInteger.valueOf(end)).as(what).isEqualTo(exact);
            }
        }
    }

    @Test
    void densityAgreesWithExactArithmetic() {
        Random random = seeded();
        for (int i = 0; i < 200_000; i++) {
            long min = near(random);
            long max = random.nextBoolean() ? near(random) : min + random.nextInt(1_000_000);
            if (max < min) {
                long t = min;
                min = max;
                max = t;
            }
            BigInteger span = BigInteger.valueOf(max).subtract(BigInteger.valueOf(min)).add(BigInteger.ONE);
            // rows around half of the span, where the answer turns
            BigDecimal least = new BigDecimal(span).divide(BigDecimal.valueOf(2));
            long rows = least.compareTo(BigDecimal.valueOf(Long.MAX_VALUE - 2)) < 0 ? least.longValue() + random.nextInt(5) - 2
                    : Long.MAX_VALUE - random.nextInt(3);
            boolean exact = new BigDecimal(rows).compareTo(least) >= 0;
            assertThat(DenseKeyChunks.dense(rows, min, max)).as("rows %d, keys %d to %d", rows, min, max).isEqualTo(exact);
        }
        assertThat(DenseKeyChunks.dense(Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE)).isFalse(); // one under 2^63
        assertThat(DenseKeyChunks.dense(Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1)).isFalse(); // 2^64 - 1 keys
        assertThat(DenseKeyChunks.dense(Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 2)).isTrue();
        assertThat(DenseKeyChunks.dense(0, 7, 7)).isFalse();
        assertThat(DenseKeyChunks.dense(1, 7, 7)).isTrue();
        assertThat(DenseKeyChunks.dense(1, 7, 9)).isFalse();
        assertThat(DenseKeyChunks.dense(2, 7, 9)).isTrue();
        assertThat(DenseKeyChunks.dense(1, 7, 8)).isTrue();
        assertThat(DenseKeyChunks.dense(-1, 7, 8)).isFalse();
    }

    /** A long near the least, the greatest, or zero. */
    private static long near(Random random) {
        long delta = random.nextInt(3) == 0 ? random.nextInt(1_000) : random.nextLong() >>> (1 + random.nextInt(63));
        return switch (random.nextInt(3)) {
            case 0 -> Long.MIN_VALUE + delta;
            case 1 -> Long.MAX_VALUE - delta;
            default -> random.nextBoolean() ? delta : -delta;
        };
    }

    private static Random seeded() {
        long seed = Long.getLong("rustcdc.chunks.seed", System.nanoTime());
        System.out.println("DenseKeyChunksTest seed " + seed + " (replay with -Drustcdc.chunks.seed=" + seed + ")");
        return new Random(seed);
    }
}
