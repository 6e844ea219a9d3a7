package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.testing.PositionTexts;
import io.rustcdc.flink.testing.Seeds;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link SqlServerPosition#writeTo}'s pieces against its {@code toString()}, for random positions after a commit,
 * after a change, before a commit and announcing a capture instance, with LSN parts from 0 to their largest.
 * Seeds from {@code -Dposition.seed=N[,M]}; {@code -Dposition.runs} new ones otherwise.
 */
class PositionTextTest {
    private static final int POSITIONS = 20_000;

    @Test
    void randomPositionsWriteTheirText() {
        for (long seed : Seeds.of("position.seed", "position.runs", 2)) {
            System.out.println("PositionTextTest seed " + seed + " (replay: -Dposition.seed=" + seed + ")");
            Random random = new Random(seed);
            for (int i = 0; i < POSITIONS; i++) {
                Lsn commit = lsn(random);
                SqlServerPosition p = switch (random.nextInt(4)) {
                    case 0 -> SqlServerPosition.afterCommit(commit);
                    case 1 -> SqlServerPosition.beforeCommit(commit);
                    case 2 -> SqlServerPosition.announcing(commit, random.nextInt());
                    default -> SqlServerPosition.afterChange(commit, random.nextBoolean() ? random.nextInt(100)
                            : random.nextInt(Integer.MAX_VALUE), lsn(random),
                            ChangeOperation.of(1 + random.nextInt(4)));
                };
                PositionTexts.check(p, "seed " + seed);
            }
        }
    }

    private static Lsn lsn(Random random) {
        if (random.nextInt(4) == 0) {
            byte[] bytes = new byte[Lsn.BYTES];
            random.nextBytes(bytes);
            return Lsn.of(bytes);
        }
        return Lsn.of(part(random), part(random), random.nextInt(0x10000));
    }

    private static long part(Random random) {
        return random.nextBoolean() ? random.nextInt(0x1000) : random.nextInt() & 0xFFFF_FFFFL;
    }
}
