package io.rustcdc.flink.mysql;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.testing.IntegerKeyChunks;
import io.rustcdc.flink.testing.Seeds;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
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
    private static final String[] TYPES = {"INT", "BIGINT", "MEDIUMINT UNSIGNED", "SMALLINT"};

    @Test
    void denseKeysChunkByComputedEnds(MySqlDatabase db) {
        Seeds.forEach("rustcdc.chunks.seed", "rustcdc.chunks.runs", 1, random -> {
            for (int round = 0; round < 12; round++) {
                String type = round < 3 ? "BIGINT" : TYPES[random.nextInt(TYPES.length)];
                TreeSet<Long> keys = IntegerKeyChunks.denseKeys(random, round, type.contains("UNSIGNED"));
                int chunkSize = 2 + random.nextInt(40);
                IntegerKeyChunks.checkComputed(readInChunks(db, type, keys, chunkSize), keys, chunkSize,
                        "round " + round + ", " + type + ", chunk size " + chunkSize + ", keys " + keys.first() + " to "
                                + keys.last());
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

    /** Table {@code keyed} of {@code keys}, analysed (its row count decides the way), read as the source reads it. */
    private static List<List<Long>> readInChunks(MySqlDatabase db, String type, TreeSet<Long> keys, int chunkSize) {
        db.execute("DROP TABLE IF EXISTS keyed", "CREATE TABLE keyed (k " + type + " PRIMARY KEY, n INT)");
        List<Long> all = new ArrayList<>(keys);
        for (int from = 0; from < all.size(); from += 100) {
            db.execute("INSERT INTO keyed VALUES " + all.subList(from, Math.min(all.size(), from + 100)).stream()
                    .map(k -> "(" + k + ", 0)").collect(Collectors.joining(", ")));
        }
        db.execute("ANALYZE TABLE keyed");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            return IntegerKeyChunks.readInChunks(session, session.describe(TableId.of(db.name(), db.name(), "keyed")),
                    "k", chunkSize);
        }
    }
}
