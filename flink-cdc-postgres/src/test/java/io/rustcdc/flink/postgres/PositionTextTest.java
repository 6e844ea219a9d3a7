package io.rustcdc.flink.postgres;

import io.rustcdc.flink.testing.PositionTexts;
import io.rustcdc.flink.testing.Seeds;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link PostgresPosition#writeTo}'s pieces against its {@code toString()}, for random LSNs (small, 32-bit and
 * full 64-bit ones, unsigned) and events taken. Seeds from {@code -Dposition.seed=N[,M]}; {@code -Dposition.runs}
 * new ones otherwise.
 */
class PositionTextTest {
    private static final int POSITIONS = 20_000;

    @Test
    void randomPositionsWriteTheirText() {
        for (long seed : Seeds.of("position.seed", "position.runs", 2)) {
            System.out.println("PositionTextTest seed " + seed + " (replay: -Dposition.seed=" + seed + ")");
            Random random = new Random(seed);
            for (int i = 0; i < POSITIONS; i++) {
                Lsn lsn = Lsn.valueOf(switch (random.nextInt(4)) {
                    case 0 -> random.nextInt(4096);
                    case 1 -> random.nextInt() & 0xFFFF_FFFFL;
                    case 2 -> random.nextLong() >>> random.nextInt(64);
                    default -> random.nextLong();
                });
                long events = switch (random.nextInt(3)) {
                    case 0 -> 0;
                    case 1 -> random.nextInt(1000);
                    default -> random.nextLong() >>> 1;
                };
                PostgresPosition p = events == 0 && random.nextBoolean() ? PostgresPosition.at(lsn)
                        : PostgresPosition.inTransaction(lsn, events, random.nextInt() & 0xFFFF_FFFFL);
                PositionTexts.check(p, "seed " + seed);
            }
        }
    }
}
