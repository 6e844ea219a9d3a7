package io.rustcdc.flink.postgres;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.testing.IntegerKeyChunks;
import io.rustcdc.flink.testing.Seeds;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Chunk ends of an integer key ({@link io.rustcdc.flink.source.spi.DenseKeyChunks}) on random key sets, seed
 * printed (replay with {@code -Drustcdc.chunks.seed=<seed>}): in a dense table each end is computed, so no chunk
 * holds more rows than the chunk size, at the ends of the long's range too; a sparse table's and a table's never
 * analysed are counted; either way every row is read once.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(300)
class PostgresDenseKeyChunksITCase {
    /** Every integer type a key may have, with its least and greatest value (an oid is unsigned). */
    private static final Map<String, long[]> TYPES = Map.of("smallint", new long[] {Short.MIN_VALUE, Short.MAX_VALUE},
            "integer", new long[] {Integer.MIN_VALUE, Integer.MAX_VALUE}, "bigint", new long[] {Long.MIN_VALUE,
                    Long.MAX_VALUE}, "oid", new long[] {0, 4294967295L});

    /** Each type at its least value, at its greatest, and around zero or mid-range, a random chunk size each. */
    @Test
    void denseKeysChunkByComputedEnds(PostgresDatabase db) {
        Seeds.forEach("rustcdc.chunks.seed", "rustcdc.chunks.runs", 1, random -> {
            for (String type : new TreeSet<>(TYPES.keySet())) {
                for (int round = 0; round < 3; round++) {
                    TreeSet<Long> keys = IntegerKeyChunks.denseKeys(random, round, TYPES.get(type)[0], TYPES.get(type)[1]);
                    int chunkSize = 2 + random.nextInt(40);
                    IntegerKeyChunks.checkComputed(readInChunks(db, type, keys, chunkSize, true), keys, chunkSize,
                            "round " + round + ", " + type + ", chunk size " + chunkSize + ", keys " + keys.first() + " to "
                                    + keys.last());
                }
            }
        });
    }

    /** A row filter's chunks are counted in the rows it selects, dense keys or not. */
    @Test
    void aRowFilterChunksByCountedEnds(PostgresDatabase db) {
        Seeds.forEach("rustcdc.chunks.seed", "rustcdc.chunks.runs", 1, random -> {
            TreeSet<Long> keys = IntegerKeyChunks.denseKeys(random, 3, 0, 100_000);
            createKeyed(db, "integer", keys, true);
            try (CatalogSession<PostgresPosition, PostgresChunkMark> session =
                    PostgresConnector.create(PostgresTestConfigs.builder(db).build()).openSession()) {
                IntegerKeyChunks.checkRowFilterCounted(session, session.describe(TableId.of(db.name(), "public", "keyed")),
                        "k", keys, "k % 2 = 0");
            }
        });
    }

    @Test
    void sparseOrUnanalysedKeysChunkByCountedEnds(PostgresDatabase db) {
        Seeds.forEach("rustcdc.chunks.seed", "rustcdc.chunks.runs", 1, random -> {
            TreeSet<Long> sparse = IntegerKeyChunks.sparseKeys(random, 200);
            int chunkSize = 2 + random.nextInt(30);
            IntegerKeyChunks.checkCounted(readInChunks(db, "bigint", sparse, chunkSize, true), sparse, chunkSize);
            TreeSet<Long> dense = IntegerKeyChunks.denseKeys(random, 3, Long.MIN_VALUE, Long.MAX_VALUE);
            IntegerKeyChunks.checkCounted(readInChunks(db, "bigint", dense, chunkSize, false), dense, chunkSize);
        });
    }

    @Test
    void repeatedChunkKeyColumnChunksByCountedEnds(PostgresDatabase db) {
        db.execute("DROP TABLE IF EXISTS repeated", "CREATE TABLE repeated (id int PRIMARY KEY, n int NOT NULL)",
                "INSERT INTO repeated SELECT g, g / 10 FROM generate_series(0, 499) g", "ANALYZE repeated",
                "GRANT SELECT ON repeated TO " + db.replicationUser());
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session =
                PostgresConnector.create(PostgresTestConfigs.builder(db).build()).openSession()) {
            IntegerKeyChunks.checkRepeatedKeyCounted(session, session.describe(TableId.of(db.name(), "public", "repeated")));
        }
    }

    /** Table {@code keyed} of {@code keys} (analysed or not: its row count decides the way), read as the source reads it. */
    private static List<List<Long>> readInChunks(PostgresDatabase db, String type, TreeSet<Long> keys, int chunkSize,
            boolean analysed) {
        createKeyed(db, type, keys, analysed);
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session =
                PostgresConnector.create(PostgresTestConfigs.builder(db).build()).openSession()) {
            return IntegerKeyChunks.readInChunks(session, session.describe(TableId.of(db.name(), "public", "keyed")),
                    "k", chunkSize);
        }
    }

    /** Table {@code keyed} of {@code keys} of {@code type}, analysed or not, readable by the source's role. */
    private static void createKeyed(PostgresDatabase db, String type, TreeSet<Long> keys, boolean analysed) {
        db.execute("DROP TABLE IF EXISTS keyed", "CREATE TABLE keyed (k " + type + " PRIMARY KEY, n int)"
                        // not analysed behind the test's back either
                        + (analysed ? "" : " WITH (autovacuum_enabled = false)"),
                "INSERT INTO keyed VALUES " + keys.stream().map(k -> "(" + k + ", 0)").collect(Collectors.joining(", ")),
                analysed ? "ANALYZE keyed" : "SELECT 1", "GRANT SELECT ON keyed TO " + db.replicationUser());
    }
}
