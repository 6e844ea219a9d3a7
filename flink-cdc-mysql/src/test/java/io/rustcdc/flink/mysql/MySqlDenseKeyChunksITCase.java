package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.testing.IntegerKeyChunks;
import io.rustcdc.flink.testing.Seeds;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Chunk ends of an integer key ({@link io.rustcdc.flink.source.spi.DenseKeyChunks}) on random key sets, seed
 * printed (replay with {@code -Drustcdc.chunks.seed=<seed>}): in a dense table each end is computed, the first
 * key after the previous end plus the chunk size less one, so no chunk holds more rows than the chunk size, at
 * the ends of the long's range too; a sparse table's ends are counted (every chunk but the last holds exactly
 * the chunk size); either way every row is read once.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(300)
class MySqlDenseKeyChunksITCase {
    /** Every integer type a key may have whose values are longs but YEAR, with its least and greatest value. */
    private static final Map<String, long[]> TYPES = Map.ofEntries(Map.entry("TINYINT", new long[] {-128, 127}),
            Map.entry("TINYINT UNSIGNED", new long[] {0, 255}), Map.entry("SMALLINT", new long[] {-32768, 32767}),
            Map.entry("SMALLINT UNSIGNED", new long[] {0, 65535}), Map.entry("MEDIUMINT", new long[] {-8388608, 8388607}),
            Map.entry("MEDIUMINT UNSIGNED", new long[] {0, 16777215}),
            Map.entry("INT", new long[] {Integer.MIN_VALUE, Integer.MAX_VALUE}),
            Map.entry("INT UNSIGNED", new long[] {0, 4294967295L}),
            Map.entry("BIGINT", new long[] {Long.MIN_VALUE, Long.MAX_VALUE}));

    /** Each type at its least value, at its greatest, and around zero or mid-range, a random chunk size each. */
    @Test
    void denseKeysChunkByComputedEnds(MySqlDatabase db) {
        Seeds.forEach("rustcdc.chunks.seed", "rustcdc.chunks.runs", 1, random -> {
            for (String type : new TreeSet<>(TYPES.keySet())) {
                for (int round = 0; round < 3; round++) {
                    TreeSet<Long> keys = IntegerKeyChunks.denseKeys(random, round, TYPES.get(type)[0], TYPES.get(type)[1]);
                    int chunkSize = 2 + random.nextInt(60); // Oracle MySQL completes each chunk from the binlog
                    IntegerKeyChunks.checkComputed(readInChunks(db, type, keys, chunkSize), keys, chunkSize,
                            "round " + round + ", " + type + ", chunk size " + chunkSize + ", keys " + keys.first() + " to "
                                    + keys.last());
                }
            }
        });
    }

    /**
     * Oracle MySQL serves {@code TABLE_ROWS} from a cache for a day by default: the source reads it live, or a table
     * filled after it was cached (with 0 rows here) would have its ends counted.
     */
    @Test
    void oracleMySqlRowEstimateIsReadLive(MySqlDatabase db) {
        Assumptions.assumeFalse(db.server().isMariaDb(), "Oracle MySQL's statistics cache");
        db.execute("DROP TABLE IF EXISTS cached", "CREATE TABLE cached (k INT PRIMARY KEY, n INT)");
        assertThat(db.queryValue("SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = '" + db.name()
                + "' AND TABLE_NAME = 'cached'")).as("cached while empty").isEqualTo("0");
        // gaps, so that counted chunks differ from computed ones
        db.execute("INSERT INTO cached SELECT seq, 0 FROM (WITH RECURSIVE s (seq) AS (SELECT 1 UNION ALL SELECT seq + 1 "
                + "FROM s WHERE seq < 300) SELECT seq FROM s) AS numbers WHERE seq % 10 <> 0");
        assertThat(db.queryValue("SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = '" + db.name()
                + "' AND TABLE_NAME = 'cached'")).as("the cache, not analysed since").isEqualTo("0");
        TreeSet<Long> keys = new TreeSet<>();
        for (long k = 1; k <= 300; k++) {
            if (k % 10 != 0) {
                keys.add(k);
            }
        }
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            IntegerKeyChunks.checkComputed(IntegerKeyChunks.readInChunks(session,
                    session.describe(TableId.of(db.name(), db.name(), "cached")), "k", 7), keys, 7, "270 keys, unanalysed");
        }
    }

    /**
     * A YEAR key is counted, dense or not: MySQL takes a number of 1 to 99 given for a YEAR as a two-digit year, and
     * an end computed after the year 0000 may be one.
     */
    @Test
    void yearKeysChunkByCountedEnds(MySqlDatabase db) {
        Seeds.forEach("rustcdc.chunks.seed", "rustcdc.chunks.runs", 1, random -> {
            checkCountedDense(db, "YEAR", IntegerKeyChunks.denseKeys(random, 2, 1901, 2155), random);
        });
    }

    /** A row filter's chunks are counted in the rows it selects, dense keys or not. */
    @Test
    void aRowFilterChunksByCountedEnds(MySqlDatabase db) {
        Seeds.forEach("rustcdc.chunks.seed", "rustcdc.chunks.runs", 1, random -> {
            TreeSet<Long> keys = IntegerKeyChunks.denseKeys(random, 3, 0, 100_000);
            createKeyed(db, "INT", keys);
            MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
            try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
                IntegerKeyChunks.checkRowFilterCounted(session, session.describe(TableId.of(db.name(), db.name(), "keyed")),
                        "k", keys, "k % 2 = 0");
            }
        });
    }

    /**
     * A {@code BIGINT UNSIGNED} key, whose values may pass the greatest long, is counted: dense keys from zero (every
     * chunk but the last of exactly the chunk size) and at the type's top end (each read once, in order).
     */
    @Test
    void unsignedBigintKeysChunkByCountedEnds(MySqlDatabase db) {
        Seeds.forEach("rustcdc.chunks.seed", "rustcdc.chunks.runs", 1, random -> {
            TreeSet<Long> keys = IntegerKeyChunks.denseKeys(random, 0, 0, 100_000);
            int chunkSize = checkCountedDense(db, "BIGINT UNSIGNED", keys, random);
            BigInteger top = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
            db.execute("DROP TABLE IF EXISTS topped", "CREATE TABLE topped (k BIGINT UNSIGNED PRIMARY KEY, n INT)",
                    "INSERT INTO topped VALUES " + keys.stream().map(k -> "(" + top.subtract(BigInteger.valueOf(k)) + ", 0)")
                            .collect(Collectors.joining(", ")), "ANALYZE TABLE topped");
            List<BigInteger> expected = keys.descendingSet().stream().map(k -> top.subtract(BigInteger.valueOf(k)))
                    .collect(Collectors.toList());
            MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
            try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
                TableDescription table = session.describe(TableId.of(db.name(), db.name(), "topped"));
                List<BigInteger> read = new ArrayList<>();
                Object[] after = null;
                do {
                    Object[] upTo = session.nextChunkEnd(table, List.of("k"), after, chunkSize);
                    List<BigInteger> chunk = new ArrayList<>();
                    session.readChunk(table, List.of("k"), after, upTo, e -> chunk.add((BigInteger) e.after().get("k")));
                    assertThat(chunk).as("a counted chunk").hasSizeLessThanOrEqualTo(chunkSize);
                    assertThat(upTo == null || chunk.size() == chunkSize).as("a counted chunk").isTrue();
                    read.addAll(chunk);
                    after = upTo;
                } while (after != null);
                assertThat(read).as("keys up to 2^64 - 1, each once, in order").isEqualTo(expected);
            }
        });
    }

    @Test
    void sparseKeysChunkByCountedEnds(MySqlDatabase db) {
        Seeds.forEach("rustcdc.chunks.seed", "rustcdc.chunks.runs", 1, random -> {
            TreeSet<Long> keys = IntegerKeyChunks.sparseKeys(random, 200);
            int chunkSize = 2 + random.nextInt(30);
            IntegerKeyChunks.checkCounted(readInChunks(db, "BIGINT", keys, chunkSize), keys, chunkSize);
        });
    }

    @Test
    void repeatedChunkKeyColumnChunksByCountedEnds(MySqlDatabase db) {
        db.execute("DROP TABLE IF EXISTS repeated", "CREATE TABLE repeated (id INT PRIMARY KEY, n INT NOT NULL)",
                "INSERT INTO repeated SELECT seq, seq DIV 10 FROM " + (db.server().isMariaDb() ? "seq_0_to_499"
                        : "(WITH RECURSIVE s (seq) AS (SELECT 0 UNION ALL SELECT seq + 1 FROM s WHERE seq < 499) "
                                + "SELECT seq FROM s) AS numbers"), "ANALYZE TABLE repeated");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            IntegerKeyChunks.checkRepeatedKeyCounted(session, session.describe(TableId.of(db.name(), db.name(), "repeated")));
        }
    }

    /** Checks that table {@code keyed} of dense {@code keys} of {@code type} is counted; returns the chunk size drawn. */
    private static int checkCountedDense(MySqlDatabase db, String type, TreeSet<Long> keys, Random random) {
        int chunkSize = 2 + random.nextInt(30);
        IntegerKeyChunks.checkCounted(readInChunks(db, type, keys, chunkSize), keys, chunkSize);
        return chunkSize;
    }

    /** Table {@code keyed} of {@code keys}, analysed (its row count decides the way), read as the source reads it. */
    private static List<List<Long>> readInChunks(MySqlDatabase db, String type, TreeSet<Long> keys, int chunkSize) {
        createKeyed(db, type, keys);
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            return IntegerKeyChunks.readInChunks(session, session.describe(TableId.of(db.name(), db.name(), "keyed")),
                    "k", chunkSize);
        }
    }

    /** Table {@code keyed} of {@code keys} of {@code type}, analysed. */
    private static void createKeyed(MySqlDatabase db, String type, TreeSet<Long> keys) {
        db.execute("DROP TABLE IF EXISTS keyed", "CREATE TABLE keyed (k " + type + " PRIMARY KEY, n INT)");
        List<Long> all = new ArrayList<>(keys);
        for (int from = 0; from < all.size(); from += 100) {
            db.execute("INSERT INTO keyed VALUES " + all.subList(from, Math.min(all.size(), from + 100)).stream()
                    .map(k -> "(" + k + ", 0)").collect(Collectors.joining(", ")));
        }
        db.execute("ANALYZE TABLE keyed");
    }
}
