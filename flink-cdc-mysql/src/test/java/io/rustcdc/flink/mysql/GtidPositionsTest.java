package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class GtidPositionsTest {
    private static final String A = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    private static final String B = "4f22ab58-82db-22f2-af44-d91bb0530673";

    @Test
    void mysqlSetsParseAndPrintCanonically() {
        assertThat(MySqlGtidSet.parse("").toString()).isEmpty();
        assertThat(MySqlGtidSet.parse(A + ":1-5").toString()).isEqualTo(A + ":1-5");
        // MySQL prints sets with line breaks after commas, and uuids in any case
        assertThat(MySqlGtidSet.parse(B.toUpperCase() + ":3,\n" + A + ":7-9:1-5").toString())
                .isEqualTo(A + ":1-5:7-9," + B + ":3");
    }

    @Test
    void mysqlIntervalsCoalesceWhenAdjacentOrOverlapping() {
        assertThat(MySqlGtidSet.parse(A + ":1-5:6-8:10").toString()).isEqualTo(A + ":1-8:10");
        assertThat(MySqlGtidSet.parse(A + ":4-9:1-5").toString()).isEqualTo(A + ":1-9");
        MySqlGtidSet set = MySqlGtidSet.parse(A + ":1-5:7");
        assertThat(set.with(A, 6).toString()).as("a gap closed").isEqualTo(A + ":1-7");
        assertThat(set.with(A, 9).toString()).isEqualTo(A + ":1-5:7:9");
        assertThat(set.with(A, 3)).as("already executed").isEqualTo(set);
        assertThat(set.with(B, 1).toString()).isEqualTo(A + ":1-5:7," + B + ":1");
        assertThat(set.toString()).as("immutable").isEqualTo(A + ":1-5:7");
        assertThat(set.contains(A, 5)).isTrue();
        assertThat(set.contains(A, 6)).isFalse();
        assertThat(set.contains(B, 1)).isFalse();
    }

    @Test
    void aLongStreamOfOneServerStaysOneInterval() {
        MySqlGtidSet set = MySqlGtidSet.parse(A + ":1-500");
        for (long t = 501; t <= 10_000; t++) {
            set = set.with(A, t);
        }
        assertThat(set.toString()).isEqualTo(A + ":1-10000");
    }

    @Test
    void malformedMysqlSetsAreRefusedWithWhy() {
        assertThatThrownBy(() -> MySqlGtidSet.parse(A)).hasMessageContaining("is not uuid:interval");
        assertThatThrownBy(() -> MySqlGtidSet.parse("not-a-uuid:1-5")).hasMessageContaining("is not uuid:interval");
        assertThatThrownBy(() -> MySqlGtidSet.parse(A + ":5-3")).hasMessageContaining("'5-3' is not a range");
        assertThatThrownBy(() -> MySqlGtidSet.parse(A + ":0")).hasMessageContaining("'0' is not a range");
        assertThatThrownBy(() -> MySqlGtidSet.parse(A + ":1-5:tag")).hasMessageContaining("tag 'tag' in")
                .hasMessageContaining("has no transactions");
        assertThatThrownBy(() -> MySqlGtidSet.parse(A + ":a:b:1")).hasMessageContaining("tag 'a' in");
        assertThatThrownBy(() -> MySqlGtidSet.parse(A + ":" + "t".repeat(33) + ":1"))
                .hasMessageContaining("is neither a transaction number or range nor a tag");
        assertThatThrownBy(() -> MySqlGtidSet.parse(A + ":9tag:1")).hasMessageContaining("nor a tag");
        assertThatThrownBy(() -> MySqlGtidSet.parse("0-1-12345,1-2-7"))
                .hasMessageContaining("It is a MariaDB GTID position").hasMessageContaining("ServerFlavor.MARIADB");
    }

    /** Tagged GTIDs (MySQL 8.3+): a uuid's untagged transactions first, then its tags in order, in lower case. */
    @Test
    void taggedSetsParseAndPrintAsTheServerDoes() {
        assertThat(MySqlGtidSet.parse(A + ":1-10:tag_a:1-2:b:1").toString()).isEqualTo(A + ":1-10:b:1:tag_a:1-2");
        assertThat(MySqlGtidSet.parse(B + ":Tag_A:3," + A.toUpperCase() + ":TAG_A:1:2,\n" + B + ":1").toString())
                .isEqualTo(A + ":tag_a:1-2," + B + ":1:tag_a:3");
        assertThat(MySqlGtidSet.parse(A + ":1:z9:1:a:1:_x:1").toString()).as("by byte: _ before a")
                .isEqualTo(A + ":1:_x:1:a:1:z9:1");
        MySqlGtidSet set = MySqlGtidSet.parse(A + ":1-3:tag_a:1");
        assertThat(set.with(A + ":TAG_A", 2).toString()).isEqualTo(A + ":1-3:tag_a:1-2");
        assertThat(set.with(A + ":b", 1).toString()).isEqualTo(A + ":1-3:b:1:tag_a:1");
        assertThat(set.contains(A + ":tag_a", 1)).isTrue();
        assertThat(set.contains(A + ":Tag_A", 1)).isTrue();
        assertThat(set.contains(A, 4)).isFalse();
        assertThat(set.contains(A + ":b", 1)).isFalse();
        assertThat(MySqlGtidSet.parse(A + ":tag_a:1").isSubsetOf(MySqlGtidSet.parse(A + ":1"))).isFalse();
        assertThat(MySqlGtidSet.parse(A + ":1").isSubsetOf(set)).isTrue();
        assertThatThrownBy(() -> set.with(A + ":9x", 1)).isInstanceOf(IllegalArgumentException.class);
    }

    /** COM_BINLOG_DUMP_GTID's form: untagged as before 8.3, tagged with the format in the count and a tag each. */
    @Test
    void setsEncodeAsTheBinlogDumpTakesThem() {
        assertThat(hex(MySqlGtidSet.parse(A + ":1-5:7").encoded())).isEqualTo("0100000000000000"
                + "3e11fa4771ca11e19e33c80aa9429562" + "0200000000000000"
                + "0100000000000000" + "0600000000000000" + "0700000000000000" + "0800000000000000");
        assertThat(hex(MySqlGtidSet.parse(A + ":2:ab:1").encoded())).isEqualTo("0102000000000001"
                + "3e11fa4771ca11e19e33c80aa9429562" + "00" + "0100000000000000"
                + "0200000000000000" + "0300000000000000"
                + "3e11fa4771ca11e19e33c80aa9429562" + "04" + "6162" + "0100000000000000"
                + "0100000000000000" + "0200000000000000");
        assertThat(hex(MySqlGtidSet.empty().encoded())).isEqualTo("0000000000000000");
    }

    private static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (byte b : bytes) {
            sb.append(String.format("%02x", b));
        }
        return sb.toString();
    }

    @Test
    void mariadbPositionsHoldOneGtidPerDomain() {
        MariaDbGtidPosition p = MariaDbGtidPosition.parse("1-2-77, 0-1-12345");
        assertThat(p.toString()).isEqualTo("0-1-12345,1-2-77");
        assertThat(p.with(0, 1, 12346).toString()).isEqualTo("0-1-12346,1-2-77");
        assertThat(p.with(0, 3, 5).toString()).as("a new primary of the domain").isEqualTo("0-3-5,1-2-77");
        assertThat(p.with(7, 1, 1).toString()).isEqualTo("0-1-12345,1-2-77,7-1-1");
        assertThat(MariaDbGtidPosition.parse("0-1-18446744073709551615").toString())
                .as("sequence numbers are unsigned 64-bit").isEqualTo("0-1-18446744073709551615");
        assertThat(MariaDbGtidPosition.parse("").isEmpty()).isTrue();
    }

    @Test
    void malformedMariadbPositionsAreRefusedWithWhy() {
        assertThatThrownBy(() -> MariaDbGtidPosition.parse("0-1")).hasMessageContaining("is not domain-server-sequence");
        assertThatThrownBy(() -> MariaDbGtidPosition.parse("0-1-5,0-2-6")).hasMessageContaining("domain 0 appears twice");
        assertThatThrownBy(() -> MariaDbGtidPosition.parse("0-1-18446744073709551616"))
                .hasMessageContaining("beyond 18446744073709551615");
        assertThatThrownBy(() -> MariaDbGtidPosition.parse("4294967296-1-5")).hasMessageContaining("beyond 4294967295");
        assertThatThrownBy(() -> MariaDbGtidPosition.parse(A + ":1-5"))
                .hasMessageContaining("It is a MySQL GTID set").hasMessageContaining("ServerFlavor.MYSQL");
    }

    @Test
    void mariadbPositionsOrderWithinOneHistoryAndNotAcrossDivergedOnes() {
        MariaDbGtidPosition p = MariaDbGtidPosition.parse("0-1-10,1-2-5");
        assertThat(p.compareInHistory(MariaDbGtidPosition.parse("0-1-10,1-2-5"))).isZero();
        assertThat(p.compareInHistory(MariaDbGtidPosition.parse("0-3-11,1-2-5"))).as("a new primary").isNegative();
        assertThat(p.compareInHistory(MariaDbGtidPosition.parse("0-1-10"))).as("a domain it lacks").isPositive();
        assertThat(p.compareInHistory(MariaDbGtidPosition.parse("0-1-9,1-2-6"))).as("diverged").isNull();
        assertThat(MariaDbGtidPosition.parse("0-1-18446744073709551615").compareInHistory(
                MariaDbGtidPosition.parse("0-1-1"))).as("unsigned").isPositive();
    }

    @Test
    void mariadbPositionsWithGtidsOrderByThemAcrossBinlogFiles() {
        MySqlPosition primary = MySqlPosition.at("mariadb-bin.000009", 5000, MariaDbGtidPosition.parse("0-1-10"));
        MySqlPosition replica = MySqlPosition.at("replica-bin.000001", 400, MariaDbGtidPosition.parse("0-1-10"));
        MySqlPosition next = MySqlPosition.at("replica-bin.000001", 900, MariaDbGtidPosition.parse("0-1-11"));
        assertThat(primary.compareTo(replica)).as("the same point of the history").isZero();
        assertThat(primary.inTransaction(0, 2)).isGreaterThan(replica.inTransaction(0, 1)).isLessThan(next);
        assertThat(primary).isLessThan(next);
        // without GTIDs on both sides: by file and offset
        assertThat(MySqlPosition.at(ServerFlavor.MARIADB, "mariadb-bin.000009", 5000)).isGreaterThan(next);
        MySqlPosition diverged = MySqlPosition.at("mariadb-bin.000001", 100, MariaDbGtidPosition.parse("0-1-9,1-2-6"));
        assertThat(diverged.compareTo(MySqlPosition.at("mariadb-bin.000002", 4, MariaDbGtidPosition.parse("0-1-10,1-2-5"))))
                .as("diverged histories fall back to the file order").isNegative();
    }

    @Test
    void mysqlSubsetsAnswerPerTransaction() {
        MySqlGtidSet set = MySqlGtidSet.parse(A + ":1-5:7-9," + B + ":3");
        assertThat(MySqlGtidSet.empty().isSubsetOf(set)).isTrue();
        assertThat(set.isSubsetOf(set)).isTrue();
        assertThat(MySqlGtidSet.parse(A + ":2-4:8").isSubsetOf(set)).isTrue();
        assertThat(MySqlGtidSet.parse(A + ":5-7").isSubsetOf(set)).as("6 is missing").isFalse();
        assertThat(MySqlGtidSet.parse(B + ":3-4").isSubsetOf(set)).isFalse();
        assertThat(MySqlGtidSet.parse("5a33bc69-93ec-33f3-b055-e02cc1641784:1").isSubsetOf(set)).isFalse();
        assertThat(set.isSubsetOf(MySqlGtidSet.parse(A + ":1-9"))).as("a uuid it lacks").isFalse();
    }

    /**
     * Random sets against a brute-force model of their transactions: coalescing, membership and
     * inclusion. Replay with {@code -Drustcdc.gtidset.seed=<seed>}.
     */
    @Test
    void randomMysqlSetsAgreeWithTheirTransactions() {
        long seed = Long.getLong("rustcdc.gtidset.seed", System.nanoTime());
        System.out.println("GtidPositionsTest seed: -Drustcdc.gtidset.seed=" + seed);
        Random random = new Random(seed);
        String[] uuids = {A, B, A + ":tag_a", B + ":b", A + ":_x"}; // tagged GTIDs number apart from untagged ones
        for (int round = 0; round < 500; round++) {
            boolean[][] a = new boolean[uuids.length][40];
            boolean[][] b = new boolean[uuids.length][40];
            MySqlGtidSet setA = randomSet(random, uuids, a);
            MySqlGtidSet setB = random.nextBoolean() ? randomSet(random, uuids, b) : subsetOf(random, uuids, a, b);
            boolean subset = true;
            for (int u = 0; u < uuids.length; u++) {
                for (int t = 1; t < 40; t++) {
                    assertThat(setA.contains(uuids[u], t)).as("seed %d round %d: %s has %s:%d", seed, round, setA,
                            uuids[u], t).isEqualTo(a[u][t]);
                    subset &= !b[u][t] || a[u][t];
                }
            }
            assertThat(setB.isSubsetOf(setA)).as("seed %d round %d: %s in %s", seed, round, setB, setA).isEqualTo(subset);
            assertThat(MySqlGtidSet.parse(setA.toString())).isEqualTo(setA);
            assertCoalesced(setA, seed);
            MySqlPosition pa = MySqlPosition.at("mysql-bin.000002", 4, setA);
            MySqlPosition pb = MySqlPosition.at("mysql-bin.000001", 900, setB);
            if (subset && !setB.equals(setA)) {
                assertThat(pb).as("seed %d round %d", seed, round).isLessThan(pa);
            }
        }
    }

    /** Each uuid's (and tag's) intervals ascending with a gap between each two. */
    private static void assertCoalesced(MySqlGtidSet set, long seed) {
        for (String part : set.toString().isEmpty() ? new String[0] : set.toString().split(",")) {
            String[] pieces = part.split(":");
            long end = -1;
            for (int i = 1; i < pieces.length; i++) {
                if (!Character.isDigit(pieces[i].charAt(0))) {
                    end = -1; // a tag: its own transactions follow
                    continue;
                }
                String[] range = pieces[i].split("-");
                long start = Long.parseLong(range[0]);
                assertThat(start).as("seed %d: %s coalesced", seed, set).isGreaterThan(end + 1);
                end = Long.parseLong(range[range.length - 1]);
            }
        }
    }

    private static MySqlGtidSet randomSet(Random random, String[] uuids, boolean[][] model) {
        MySqlGtidSet set = MySqlGtidSet.empty();
        for (int i = random.nextInt(30); i > 0; i--) {
            int u = random.nextInt(uuids.length);
            long t = 1 + random.nextInt(39);
            model[u][(int) t] = true;
            set = set.with(uuids[u], t);
        }
        return set;
    }

    private static MySqlGtidSet subsetOf(Random random, String[] uuids, boolean[][] of, boolean[][] model) {
        MySqlGtidSet set = MySqlGtidSet.empty();
        for (int u = 0; u < uuids.length; u++) {
            for (int t = 1; t < 40; t++) {
                if (of[u][t] && random.nextInt(4) > 0) {
                    model[u][t] = true;
                    set = set.with(uuids[u], t);
                }
            }
        }
        return set;
    }

    @Test
    void mysqlPositionsWithGtidsOrderBySetInclusionAcrossBinlogFiles() {
        MySqlPosition primary = MySqlPosition.at("mysql-bin.000009", 5000, MySqlGtidSet.parse(A + ":1-10"));
        MySqlPosition replica = MySqlPosition.at("replica-bin.000001", 400, MySqlGtidSet.parse(A + ":1-10"));
        MySqlPosition next = MySqlPosition.at("replica-bin.000001", 900, MySqlGtidSet.parse(A + ":1-11"));
        assertThat(primary.compareTo(replica)).as("the same point of the history").isZero();
        assertThat(primary.inTransaction(0, 2)).isGreaterThan(replica.inTransaction(0, 1)).isLessThan(next);
        assertThat(primary).isLessThan(next);
        assertThat(MySqlPosition.at(ServerFlavor.MYSQL, "mysql-bin.000009", 5000)).as("without GTIDs: by file")
                .isGreaterThan(next);
        MySqlPosition diverged = MySqlPosition.at("mysql-bin.000001", 100, MySqlGtidSet.parse(A + ":1-9," + B + ":1"));
        assertThat(diverged.compareTo(MySqlPosition.at("mysql-bin.000002", 4, MySqlGtidSet.parse(A + ":1-10"))))
                .as("neither set holds the other: the file order").isNegative();
        assertThat(primary.committed("mysql-bin.000009", 5400, A + ":11").mysqlGtids())
                .isEqualTo(MySqlGtidSet.parse(A + ":1-11"));
        MySqlConnector connector = MySqlConnector.create(MySqlSourceConfig.builder(ServerFlavor.MYSQL).hostname("h")
                .username("u").password(io.rustcdc.flink.source.Secret.of("p")).serverId(1).build());
        assertThat(connector.reflects(next, primary.inTransaction(1, 1))).as("a transaction before the mark").isTrue();
        assertThat(connector.reflects(next, next.inTransaction(1, 1))).as("the transaction at the mark").isFalse();
    }
}
