package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.testing.PositionTexts;
import io.rustcdc.flink.testing.Seeds;
import org.junit.jupiter.api.Test;

/**
 * The text of positions and LSNs, written by hand as PostgreSQL prints an LSN (upper-case hex, unpadded); and
 * {@link PostgresPosition#writeTo}'s pieces against its {@code toString()}, for random LSNs (small, 32-bit and
 * full 64-bit ones, unsigned) and events taken. Seeds from {@code -Dposition.seed=N[,M]}; {@code -Dposition.runs}
 * new ones otherwise.
 */
class PositionTextTest {
    private static final int POSITIONS = 20_000;

    @Test
    void lsnsPrintAsPostgresDoes() {
        assertThat(Lsn.ZERO).hasToString("0/0");
        assertThat(Lsn.valueOf(0x16_B374_D848L)).hasToString("16/B374D848");
        assertThat(Lsn.valueOf(0x16B_3748L)).hasToString("0/16B3748");
        assertThat(Lsn.valueOf(0x1_0000_000AL)).hasToString("1/A");
        assertThat(Lsn.valueOf(0xABCD_EF01_0000_00FFL)).hasToString("ABCDEF01/FF");
        assertThat(Lsn.valueOf(-1L)).hasToString("FFFFFFFF/FFFFFFFF");
    }

    @Test
    void positionsWriteTheirText() {
        PositionTexts.assertText(PostgresPosition.at(Lsn.ZERO), "0/0");
        PositionTexts.assertText(PostgresPosition.at(Lsn.valueOf(0x16_B374_D848L)), "16/B374D848");
        PositionTexts.assertText(PostgresPosition.inTransaction(Lsn.valueOf(0x16B_3748L), 3, 742), "0/16B3748#3");
        PositionTexts.assertText(PostgresPosition.inTransaction(Lsn.valueOf(0x1_0000_000AL), 0, 742), "1/A");
        PositionTexts.assertText(PostgresPosition.inTransaction(Lsn.valueOf(-1L), Long.MAX_VALUE, 0xFFFF_FFFFL),
                "FFFFFFFF/FFFFFFFF#9223372036854775807");
    }

    @Test
    void randomPositionsWriteTheirText() {
        Seeds.forEach("position.seed", "position.runs", 2, random -> {
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
                PositionTexts.check(p, "random position");
            }
        });
    }
}
