package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The count behind the {@code gtidsBehind} gauge: a MySQL set's transactions another set lacks, and a
 * MariaDB position's sequences behind another, against the transactions enumerated one by one.
 * Random sets and positions; the seed is printed, {@code -Drustcdc.gtidsbehind.seed=N} replays it.
 */
class GtidsBehindTest {
    private static final List<String> UUIDS = List.of("3e11fa47-71ca-11e1-9e33-c80aa9429562",
            "4e11fa47-71ca-11e1-9e33-c80aa9429562", "5e11fa47-71ca-11e1-9e33-c80aa9429562");

    @Test
    void aSetsTransactionsMissingFromAnotherAreCountedExactly() {
        long seed = Long.getLong("rustcdc.gtidsbehind.seed", System.nanoTime());
        System.out.println("GtidsBehindTest seed " + seed + " (replay with -Drustcdc.gtidsbehind.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int round = 0; round < 2_000; round++) {
            List<TreeSet<Long>> executed = randomTransactions(random);
            List<TreeSet<Long>> read = randomTransactions(random);
            long expected = 0;
            for (int u = 0; u < UUIDS.size(); u++) {
                for (long t : executed.get(u)) {
                    expected += read.get(u).contains(t) ? 0 : 1;
                }
            }
            MySqlGtidSet server = set(executed);
            MySqlGtidSet position = set(read);
            assertThat(server.countNotIn(position)).as("seed %s round %s: %s not in %s", seed, round, server, position)
                    .isEqualTo(expected);
            assertThat(server.countNotIn(server)).isZero();
        }
    }

    @Test
    void hugeRangesAreCountedWithoutOverflow() {
        String u = UUIDS.get(0);
        MySqlGtidSet all = MySqlGtidSet.parse(u + ":1-" + Long.MAX_VALUE);
        assertThat(all.countNotIn(MySqlGtidSet.empty())).isEqualTo(Long.MAX_VALUE);
        assertThat(all.countNotIn(MySqlGtidSet.parse(u + ":2-" + Long.MAX_VALUE))).isEqualTo(1);
        MySqlGtidSet two = MySqlGtidSet.parse(u + ":1-" + Long.MAX_VALUE + "," + UUIDS.get(1) + ":1-5");
        assertThat(two.countNotIn(MySqlGtidSet.empty())).as("more than a long holds").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aMariaDbPositionIsBehindByTheSequencesOfEachDomain() {
        long seed = Long.getLong("rustcdc.gtidsbehind.seed", System.nanoTime());
        System.out.println("GtidsBehindTest seed " + seed + " (replay with -Drustcdc.gtidsbehind.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int round = 0; round < 2_000; round++) {
            MariaDbGtidPosition server = MariaDbGtidPosition.empty();
            MariaDbGtidPosition position = MariaDbGtidPosition.empty();
            long expected = 0;
            for (long domain = 0; domain < 4; domain++) {
                // each domain numbered 1, 2, 3, ... : the server has executed up to s, the position holds up to p
                long s = random.nextInt(4) == 0 ? -1 : random.nextInt(50);
                long p = random.nextInt(4) == 0 ? -1 : random.nextInt(50);
                if (s > 0) {
                    server = server.with(domain, 1 + random.nextInt(3), s);
                }
                if (p > 0) {
                    position = position.with(domain, 1 + random.nextInt(3), p);
                }
                long executedThere = Math.max(s, 0);
                long heldThere = Math.max(p, 0);
                for (long t = 1; t <= executedThere; t++) {
                    expected += t > heldThere ? 1 : 0;
                }
            }
            assertThat(position.sequencesBehind(server)).as("seed %s round %s: %s behind %s", seed, round, position,
                    server).isEqualTo(expected);
        }
        assertThat(MariaDbGtidPosition.parse("0-1-5").sequencesBehind(MariaDbGtidPosition.parse("0-1-18446744073709551615")))
                .as("unsigned sequences beyond a long's range").isEqualTo(Long.MAX_VALUE);
    }

    /** Per uuid of {@link #UUIDS}, some transactions from 1 to 60, in runs. */
    private static List<TreeSet<Long>> randomTransactions(Random random) {
        List<TreeSet<Long>> sets = new ArrayList<>();
        for (int u = 0; u < UUIDS.size(); u++) {
            TreeSet<Long> s = new TreeSet<>();
            if (random.nextInt(4) > 0) {
                for (int run = random.nextInt(4); run >= 0; run--) {
                    long start = 1 + random.nextInt(60);
                    long end = Math.min(60, start + random.nextInt(20));
                    for (long t = start; t <= end; t++) {
                        s.add(t);
                    }
                }
            }
            sets.add(s);
        }
        return sets;
    }

    private static MySqlGtidSet set(List<TreeSet<Long>> transactions) {
        MySqlGtidSet set = MySqlGtidSet.empty();
        for (int u = 0; u < UUIDS.size(); u++) {
            for (long t : transactions.get(u)) {
                set = set.with(UUIDS.get(u), t);
            }
        }
        return set;
    }
}
