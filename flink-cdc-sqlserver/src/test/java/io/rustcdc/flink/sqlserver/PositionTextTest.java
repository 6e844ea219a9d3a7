package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.testing.PositionTexts;
import io.rustcdc.flink.testing.Seeds;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The text of positions and LSNs, written by hand as {@code sys.dm_db_log_stats} prints an LSN (upper-case hex,
 * zero-padded to 8:8:4 digits); and {@link SqlServerPosition#writeTo}'s pieces against its {@code toString()}, for
 * random positions after a commit, after a change, before a commit and announcing a capture instance, with LSN parts
 * from 0 to their largest.
 * Seeds from {@code -Dposition.seed=N[,M]}; {@code -Dposition.runs} new ones otherwise.
 */
class PositionTextTest {
    private static final int POSITIONS = 20_000;

    private static final Lsn COMMIT = Lsn.of(0x2D, 0x1A8, 3);

    @Test
    void lsnsPrintAsSqlServerDoes() {
        assertThat(Lsn.ZERO).hasToString("00000000:00000000:0000");
        assertThat(COMMIT).hasToString("0000002D:000001A8:0003");
        assertThat(Lsn.parse("0x0000abcd000000ef0010")).hasToString("0000ABCD:000000EF:0010");
        assertThat(Lsn.of(0xFFFF_FFFFL, 0xFFFF_FFFFL, 0xFFFF)).hasToString("FFFFFFFF:FFFFFFFF:FFFF");
        assertThat(Lsn.of(0x8000_0000L, 0x7FFF_FFFFL, 0x8000)).hasToString("80000000:7FFFFFFF:8000");
    }

    @Test
    void positionsWriteTheirText() {
        PositionTexts.assertText(SqlServerPosition.afterCommit(Lsn.ZERO), "00000000:00000000:0000");
        PositionTexts.assertText(SqlServerPosition.afterCommit(COMMIT), "0000002D:000001A8:0003");
        PositionTexts.assertText(SqlServerPosition.afterChange(COMMIT, 7, Lsn.of(0x2D, 0x1A0, 2),
                ChangeOperation.UPDATE_AFTER), "0000002D:000001A8:0003/7/0000002D:000001A0:0002#4");
        PositionTexts.assertText(SqlServerPosition.beforeCommit(COMMIT),
                "0000002D:000001A8:0003/0/00000000:00000000:0000#1");
        PositionTexts.assertText(SqlServerPosition.announcing(COMMIT, 0x51F),
                "0000002D:000001A8:0003/0/00000000:0000051F:0001#1");
        PositionTexts.assertText(SqlServerPosition.announcing(COMMIT, -1),
                "0000002D:000001A8:0003/0/00000000:FFFFFFFF:0001#1");
        Lsn max = Lsn.of(0xFFFF_FFFFL, 0xFFFF_FFFFL, 0xFFFF);
        PositionTexts.assertText(SqlServerPosition.afterChange(max, Integer.MAX_VALUE, max, ChangeOperation.INSERT),
                "FFFFFFFF:FFFFFFFF:FFFF/2147483647/FFFFFFFF:FFFFFFFF:FFFF#2");
    }

    @Test
    void randomPositionsWriteTheirText() {
        Seeds.forEach("position.seed", "position.runs", 2, random -> {
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
                PositionTexts.check(p, "random position");
            }
        });
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
