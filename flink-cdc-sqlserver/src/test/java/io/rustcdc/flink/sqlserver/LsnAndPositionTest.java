package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.sqlserver.state.SqlServerPositionSerializer;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * LSN parsing, printing and order, and the order of positions. Random values print their seed;
 * replay with {@code -Drustcdc.sqlserver.seed=<seed>}.
 */
class LsnAndPositionTest {
    private static final Lsn A = Lsn.parse("0000002D:000001A8:0003");

    @Test
    void parsesAndPrintsBothNotations() {
        assertThat(A.toString()).isEqualTo("0000002D:000001A8:0003");
        assertThat(A.literal()).isEqualTo("0x0000002D000001A80003");
        assertThat(Lsn.parse("0x0000002d000001a80003")).isEqualTo(A);
        assertThat(Lsn.parse("0000002D000001A80003")).isEqualTo(A);
        assertThat(Lsn.of(0x2D, 0x1A8, 3)).isEqualTo(A);
        assertThat(Lsn.of(A.bytes())).isEqualTo(A);
        assertThat(Lsn.parse("FFFFFFFF:FFFFFFFF:FFFF").bytes()).containsOnly((byte) 0xFF);
    }

    @Test
    void refusesWhatIsNotAnLsn() {
        for (String bad : new String[] {"", "0x", "2D:1A8:3", "0000002D:000001A8", "0000002D:000001A8:000G",
                "0x0000002D000001A800", "0x0000002D000001A8000300", "0000002D-000001A8-0003", "+000002D000001A80003"}) {
            assertThatThrownBy(() -> Lsn.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Not a SQL Server LSN");
        }
        assertThatThrownBy(() -> Lsn.of(new byte[9])).hasMessageContaining("10 bytes, not 9");
        assertThatThrownBy(() -> Lsn.of(1L << 32, 0, 0)).hasMessageContaining("out of range");
    }

    /** SQL Server orders binary(10) byte by byte, unsigned: as the 80-bit unsigned number the bytes spell. */
    @Test
    void randomLsnsOrderAsUnsignedBytesAndRoundTrip() {
        long seed = Long.getLong("rustcdc.sqlserver.seed", System.nanoTime());
        System.out.println("LsnAndPositionTest seed " + seed + " (replay with -Drustcdc.sqlserver.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int i = 0; i < 20_000; i++) {
            Lsn a = randomLsn(random);
            Lsn b = random.nextInt(10) == 0 ? a : randomLsn(random);
            assertThat(Integer.signum(a.compareTo(b))).as("seed %d: %s vs %s", seed, a, b)
                    .isEqualTo(new BigInteger(1, a.bytes()).compareTo(new BigInteger(1, b.bytes())));
            assertThat(Lsn.parse(a.toString())).as("seed %d", seed).isEqualTo(a);
            assertThat(Lsn.parse(a.literal())).as("seed %d", seed).isEqualTo(a);
            assertThat(a.equals(b)).isEqualTo(a.compareTo(b) == 0);
        }
    }

    @Test
    void positionsOrderByCommitThenCommandThenSequenceValueThenOperation() {
        Lsn c1 = Lsn.parse("00000010:00000020:0001");
        Lsn c2 = Lsn.parse("00000010:00000020:0002");
        Lsn s1 = Lsn.parse("00000010:00000018:0001");
        Lsn s2 = Lsn.parse("00000010:00000019:0001");
        List<SqlServerPosition> ordered = List.of(
                SqlServerPosition.afterChange(c1, 1, s2, ChangeOperation.INSERT), // the first statement
                SqlServerPosition.afterChange(c1, 2, s1, ChangeOperation.DELETE), // a key update: delete, insert
                SqlServerPosition.afterChange(c1, 2, s1, ChangeOperation.INSERT),
                SqlServerPosition.afterChange(c1, 2, s2, ChangeOperation.UPDATE_BEFORE),
                SqlServerPosition.afterChange(c1, 2, s2, ChangeOperation.UPDATE_AFTER),
                SqlServerPosition.afterCommit(c1),
                SqlServerPosition.afterChange(c2, 0, s1, ChangeOperation.INSERT),
                SqlServerPosition.afterCommit(c2));
        List<SqlServerPosition> shuffled = new ArrayList<>(ordered);
        Collections.shuffle(shuffled, new Random(7));
        Collections.sort(shuffled);
        assertThat(shuffled).isEqualTo(ordered);
    }

    /** Before a commit: after every earlier commit, before every change of it; printed and stored as a change position. */
    @Test
    void beforeACommitIsBetweenTheCommitBeforeAndItsFirstChange() throws Exception {
        Lsn c1 = Lsn.parse("00000010:00000020:0001");
        Lsn c2 = Lsn.parse("00000010:00000020:0002");
        SqlServerPosition before = SqlServerPosition.beforeCommit(c2);
        assertThat(before).isGreaterThan(SqlServerPosition.afterCommit(c1))
                .isLessThan(SqlServerPosition.afterChange(c2, 0, Lsn.parse("00000000:00000000:0001"),
                        ChangeOperation.DELETE))
                .isLessThan(SqlServerPosition.afterCommit(c2));
        assertThat(before.isBeforeCommit()).isTrue();
        assertThat(before.isCommitEnd()).isFalse();
        assertThat(SqlServerPosition.afterCommit(c2).isBeforeCommit()).isFalse();
        assertThat(before.toString()).isEqualTo("00000010:00000020:0002/0/00000000:00000000:0000#1");
        assertThat(SqlServerPosition.parse(before.toString())).isEqualTo(before);
        SqlServerPositionSerializer s = SqlServerPositionSerializer.INSTANCE;
        assertThat(s.deserialize(s.getVersion(), s.serialize(before))).isEqualTo(before);
    }

    /** An announcement: after the position before its floor commit, before every change of it, by change table. */
    @Test
    void anAnnouncementIsBeforeItsFloorCommitsChangesInChangeTableOrder() throws Exception {
        Lsn c2 = Lsn.parse("00000010:00000020:0002");
        SqlServerPosition first = SqlServerPosition.announcing(c2, 1311);
        SqlServerPosition second = SqlServerPosition.announcing(c2, Integer.MAX_VALUE);
        assertThat(first).isGreaterThan(SqlServerPosition.beforeCommit(c2)).isLessThan(second);
        assertThat(second).isLessThan(SqlServerPosition.afterChange(c2, 0, Lsn.parse("00000001:00000000:0000"),
                ChangeOperation.DELETE));
        assertThat(first.isBeforeCommit()).isTrue();
        assertThat(second.isBeforeCommit()).isTrue();
        assertThat(first.toString()).isEqualTo("00000010:00000020:0002/0/00000000:0000051F:0001#1");
        assertThat(SqlServerPosition.parse(first.toString())).isEqualTo(first);
        SqlServerPositionSerializer s = SqlServerPositionSerializer.INSTANCE;
        assertThat(s.deserialize(s.getVersion(), s.serialize(second))).isEqualTo(second);
    }

    @Test
    void positionsParseWhatTheyPrint() {
        long seed = Long.getLong("rustcdc.sqlserver.seed", System.nanoTime());
        System.out.println("LsnAndPositionTest positions seed " + seed);
        Random random = new Random(seed);
        for (int i = 0; i < 5_000; i++) {
            SqlServerPosition p = randomPosition(random);
            assertThat(SqlServerPosition.parse(p.toString())).as("seed %d", seed).isEqualTo(p);
        }
        assertThat(SqlServerPosition.parse("0000002D:000001A8:0003/7/0000002D:000001A0:0002#4").toString())
                .isEqualTo("0000002D:000001A8:0003/7/0000002D:000001A0:0002#4");
        for (String bad : new String[] {"x", "0000002D:000001A8:0003/7/0000002D:000001A0:0002",
                "0000002D:000001A8:0003/0000002D:000001A0:0002#4", "0000002D:000001A8:0003/7/0000002D:000001A0:0002#5",
                "0000002D:000001A8:0003/-1/0000002D:000001A0:0002#4", "0000002D:000001A8:0003/7/#4"}) {
            assertThatThrownBy(() -> SqlServerPosition.parse(bad)).as(bad).isInstanceOf(CdcException.class)
                    .hasMessageContaining("Not a SQL Server position: '" + bad + "'");
        }
    }

    static Lsn randomLsn(Random random) {
        // few distinct parts, so that equal prefixes are common
        return Lsn.of(random.nextInt(4) == 0 ? 0xFFFF_FFFFL - random.nextInt(3) : random.nextInt(5),
                random.nextInt(3) == 0 ? 0x8000_0000L + random.nextInt(3) : random.nextInt(5),
                random.nextInt(3) == 0 ? 0xFFFF - random.nextInt(2) : random.nextInt(4));
    }

    static SqlServerPosition randomPosition(Random random) {
        Lsn commit = randomLsn(random);
        return random.nextBoolean() ? SqlServerPosition.afterCommit(commit)
                : SqlServerPosition.afterChange(commit, random.nextInt(3), randomLsn(random),
                        ChangeOperation.values()[random.nextInt(ChangeOperation.values().length)]);
    }
}
