package io.rustcdc.flink.mysql;

import io.rustcdc.flink.testing.PositionTexts;
import io.rustcdc.flink.testing.RandomText;
import io.rustcdc.flink.testing.Seeds;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@link MySqlPosition#writeTo}'s pieces against its {@code toString()}, for random positions of both flavors:
 * binlog files named as servers name them and with characters JSON escapes (quotes, backslashes, control and
 * non-ASCII characters, unpaired surrogates), offsets and rows taken up to the largest, with and without GTIDs and
 * a transaction's GTID, read back from state or derived as a stream derives them. Each is checked before and after
 * its {@code toString()} is kept. Seeds from {@code -Dposition.seed=N[,M]}; {@code -Dposition.runs} new ones
 * otherwise.
 */
class PositionTextTest {
    private static final int POSITIONS = 10_000;
    private static final String[] ODD = {"\"", "\\", "\n", "\u0001", "\u007f", "é", "\ud800", "\udfff", "/", "#", "["};

    @Test
    void randomPositionsWriteTheirText() {
        for (long seed : Seeds.of("position.seed", "position.runs", 2)) {
            System.out.println("PositionTextTest seed " + seed + " (replay: -Dposition.seed=" + seed + ")");
            Random random = new Random(seed);
            for (int i = 0; i < POSITIONS; i++) {
                MySqlPosition p = random.nextBoolean() ? restored(random) : derived(random);
                PositionTexts.check(p, "seed " + seed);
                PositionTexts.check(p, "seed " + seed + ", its text kept");
            }
        }
    }

    private static MySqlPosition restored(Random random) {
        ServerFlavor flavor = random.nextBoolean() ? ServerFlavor.MYSQL : ServerFlavor.MARIADB;
        long events = small(random);
        long rows = small(random);
        String gtids = random.nextInt(3) == 0 ? null : flavor == ServerFlavor.MYSQL ? mysqlGtids(random) : mariaGtids(random);
        String gtid = random.nextBoolean() ? null
                : flavor == ServerFlavor.MYSQL ? uuid(random) + ":" + (1 + (random.nextLong() >>> 1))
                : mariaGtid(random);
        return MySqlPosition.restore(flavor, file(random), offset(random), events, rows, gtids, gtid,
                random.nextBoolean() ? null : Integer.toString(random.nextInt(1000) + 1));
    }

    /** As a stream derives them: a transaction's start, rows taken inside it, its commit. */
    private static MySqlPosition derived(Random random) {
        String file = file(random);
        if (random.nextBoolean()) {
            String uuid = uuid(random);
            long n = 1 + random.nextInt(1_000_000);
            MySqlPosition start = MySqlPosition.at(file, offset(random), MySqlGtidSet.parse(uuid + ":1-" + n));
            String gtid = uuid + ":" + (n + 1);
            MySqlPosition inside = start.startOf(gtid).inTransaction(small(random), 1 + small(random));
            return random.nextBoolean() ? inside : inside.committed(file, offset(random), gtid);
        }
        MariaDbGtidPosition executed = MariaDbGtidPosition.parse(mariaGtids(random));
        MySqlPosition start = MySqlPosition.at(file, offset(random), executed);
        String gtid = "0-1-" + (random.nextLong() >>> 1);
        MySqlPosition inside = start.startOf(gtid).inTransaction(1 + small(random), small(random));
        return random.nextBoolean() ? inside : inside.committed(file, offset(random), gtid);
    }

    private static String file(Random random) {
        switch (random.nextInt(4)) {
            case 0:
                return String.format("mysql-bin.%06d", random.nextInt(1_000_000));
            case 1:
                return "mariadb-bin." + (random.nextLong() >>> 1);
            case 2:
                return "x" + RandomText.next(random, 6);
            default:
                StringBuilder s = new StringBuilder("bin");
                for (int i = random.nextInt(4); i >= 0; i--) {
                    s.append(ODD[random.nextInt(ODD.length)]).append(RandomText.next(random, 2));
                }
                return s.toString();
        }
    }

    private static long offset(Random random) {
        return random.nextBoolean() ? 4 + random.nextInt(1 << 30) : 4 + (random.nextLong() >>> 2);
    }

    private static long small(Random random) {
        switch (random.nextInt(4)) {
            case 0:
                return 0;
            case 1:
                return random.nextInt(10);
            case 2:
                return random.nextInt(1_000_000);
            default:
                return random.nextLong() >>> 1;
        }
    }

    private static String uuid(Random random) {
        return new UUID(random.nextLong(), random.nextLong()).toString();
    }

    private static String mysqlGtids(Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(3); i >= 0; i--) {
            s.append(s.length() == 0 ? "" : ",").append(uuid(random)).append(":1-").append(1 + random.nextInt(1 << 20));
        }
        return s.toString();
    }

    private static String mariaGtid(Random random) {
        return random.nextInt(5) + "-" + (random.nextInt(1000) + 1) + "-" + (random.nextLong() >>> 1);
    }

    private static String mariaGtids(Random random) {
        StringBuilder s = new StringBuilder();
        for (int domain = random.nextInt(3); domain >= 0; domain--) {
            s.append(s.length() == 0 ? "" : ",").append(domain).append('-').append(random.nextInt(1000) + 1).append('-')
                    .append(random.nextLong() >>> 1);
        }
        return s.toString();
    }
}
