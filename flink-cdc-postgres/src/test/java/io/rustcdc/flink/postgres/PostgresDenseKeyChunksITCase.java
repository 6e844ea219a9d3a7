package io.rustcdc.flink.postgres;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.testing.IntegerKeyChunks;
import io.rustcdc.flink.testing.Seeds;
import java.util.List;
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
    private static final String[] TYPES = {"integer", "bigint", "smallint"};

    @Test
    void denseKeysChunkByComputedEnds(PostgresDatabase db) {
        Seeds.forEach("rustcdc.chunks.seed", "rustcdc.chunks.runs", 1, random -> {
            for (int round = 0; round < 12; round++) {
                String type = round < 3 ? "bigint" : TYPES[random.nextInt(TYPES.length)];
                TreeSet<Long> keys = IntegerKeyChunks.denseKeys(random, round, false);
                int chunkSize = 2 + random.nextInt(40);
                IntegerKeyChunks.checkComputed(readInChunks(db, type, keys, chunkSize, true), keys, chunkSize,
                        "round " + round + ", " + type + ", chunk size " + chunkSize + ", keys " + keys.first() + " to "
                                + keys.last());
            }
        });
    }

    @Test
    void sparseOrUnanalysedKeysChunkByCountedEnds(PostgresDatabase db) {
        Seeds.forEach("rustcdc.chunks.seed", "rustcdc.chunks.runs", 1, random -> {
            TreeSet<Long> sparse = IntegerKeyChunks.sparseKeys(random, 200);
            int chunkSize = 2 + random.nextInt(30);
            IntegerKeyChunks.checkCounted(readInChunks(db, "bigint", sparse, chunkSize, true), sparse, chunkSize);
            TreeSet<Long> dense = IntegerKeyChunks.denseKeys(random, 3, false);
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
        db.execute("DROP TABLE IF EXISTS keyed", "CREATE TABLE keyed (k " + type + " PRIMARY KEY, n int)"
                        // not analysed behind the test's back either
                        + (analysed ? "" : " WITH (autovacuum_enabled = false)"),
                "INSERT INTO keyed VALUES " + keys.stream().map(k -> "(" + k + ", 0)").collect(Collectors.joining(", ")),
                analysed ? "ANALYZE keyed" : "SELECT 1", "GRANT SELECT ON keyed TO " + db.replicationUser());
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session =
                PostgresConnector.create(PostgresTestConfigs.builder(db).build()).openSession()) {
            return IntegerKeyChunks.readInChunks(session, session.describe(TableId.of(db.name(), "public", "keyed")),
                    "k", chunkSize);
        }
    }
}
