package io.rustcdc.flink.mysql;

import io.rustcdc.flink.testing.PositionTexts;
import io.rustcdc.flink.testing.RandomText;
import io.rustcdc.flink.testing.Seeds;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The text of positions, written by hand ({@code file:offset#events.rows(transaction GTID) [GTIDs]}, the server
 * left out); and {@link MySqlPosition#writeTo}'s pieces against its {@code toString()}, for random positions of both flavors:
 * binlog files named as servers name them and with characters JSON escapes (quotes, backslashes, control and
 * non-ASCII characters, unpaired surrogates), offsets and rows taken up to the largest, with and without GTIDs and
 * a transaction's GTID, read back from state or derived as a stream derives them. Each is checked before and after
 * its {@code toString()} is kept. Seeds from {@code -Dposition.seed=N[,M]}; {@code -Dposition.runs} new ones
 * otherwise.
 */
class PositionTextTest {
    private static final int POSITIONS = 10_000;
    private static final String[] ODD = {"\"", "\\", "\n", "\u0001", "\u007f", "é", "\ud800", "\udfff", "/", "#", "["};

    private static final String UUID_A = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    private static final String UUID_B = "a1b2c3d4-0000-4000-8000-00000000000f";

    @Test
    void positionsWriteTheirText() {
        PositionTexts.assertText(MySqlPosition.at(ServerFlavor.MYSQL, "mysql-bin.000003", 4), "mysql-bin.000003:4");
        MySqlPosition mysql = MySqlPosition.at("mysql-bin.000003", 1234, MySqlGtidSet.parse(UUID_A + ":1-77"));
        PositionTexts.assertText(mysql, "mysql-bin.000003:1234 [" + UUID_A + ":1-77]");
        MySqlPosition inside = mysql.startOf(UUID_A + ":78").inTransaction(2, 5);
        PositionTexts.assertText(inside, "mysql-bin.000003:1234#2.5(" + UUID_A + ":78) [" + UUID_A + ":1-77]");
        PositionTexts.assertText(inside.on("7"), "mysql-bin.000003:1234#2.5(" + UUID_A + ":78) [" + UUID_A + ":1-77]");
        PositionTexts.assertText(inside.committed("mysql-bin.000003", 1500, UUID_A + ":78"),
                "mysql-bin.000003:1500 [" + UUID_A + ":1-78]");
        PositionTexts.assertText(MySqlPosition.restore(ServerFlavor.MYSQL, "mysql-bin.000004", 4, 0, 1,
                UUID_B + ":1-3:5," + UUID_A + ":1-77", null, UUID_A),
                "mysql-bin.000004:4#0.1 [" + UUID_A + ":1-77," + UUID_B + ":1-3:5]");
        PositionTexts.assertText(MySqlPosition.at("mariadb-bin.000003", 1234, MariaDbGtidPosition.parse("0-1-77"))
                .startOf("0-1-78").inTransaction(2, 5), "mariadb-bin.000003:1234#2.5(0-1-78) [0-1-77]");
        PositionTexts.assertText(MySqlPosition.at(ServerFlavor.MARIADB, "mariadb-bin.000001", 256).inTransaction(0, 3),
                "mariadb-bin.000001:256#0.3");
        PositionTexts.assertText(MySqlPosition.restore(ServerFlavor.MARIADB, "bin\"\u00e9", Long.MAX_VALUE,
                Long.MAX_VALUE, Long.MAX_VALUE, "1-2-3,0-1-9223372036854775807", "0-1-4", "1"),
                "bin\"\u00e9:9223372036854775807#9223372036854775807.9223372036854775807(0-1-4) "
                        + "[0-1-9223372036854775807,1-2-3]");
    }

    @Test
    void randomPositionsWriteTheirText() {
        Seeds.forEach("position.seed", "position.runs", 2, random -> {
            for (int i = 0; i < POSITIONS; i++) {
                MySqlPosition p = random.nextBoolean() ? restored(random) : derived(random);
                PositionTexts.check(p, "random position");
                PositionTexts.check(p, "random position, its text kept");
            }
        });
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
