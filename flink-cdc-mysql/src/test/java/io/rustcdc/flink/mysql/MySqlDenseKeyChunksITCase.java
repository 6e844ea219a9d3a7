package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.ChunkKey;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Chunk ends of an integer key ({@link DenseKeyChunks}) on random key sets, seed printed (replay with
 * {@code -Drustcdc.chunks.seed=<seed>}): in a dense table each end is computed, the first key after the
 * previous end plus the chunk size less one, so no chunk holds more rows than the chunk size, at the
 * ends of the long's range too; a sparse table's ends are counted (every chunk but the last holds exactly
 * the chunk size); either way every row is read once.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(300)
class MySqlDenseKeyChunksITCase {
    private static final String OPTION = "scan.incremental.snapshot.chunk.key-column";
    private static final String[] TYPES = {"INT", "BIGINT", "MEDIUMINT UNSIGNED", "SMALLINT"};

    @Test
    void denseKeysChunkByComputedEnds(MySqlDatabase db) {
        Random random = seeded();
        for (int round = 0; round < 12; round++) {
            String type = round < 4 ? "BIGINT" : TYPES[random.nextInt(TYPES.length)];
            List<Long> offsets = new ArrayList<>();
            long offset = 0;
            for (int i = 100 + random.nextInt(400); i > 0; i--) {
                offsets.add(offset);
                offset += random.nextInt(10) < 9 ? 1 : 2 + random.nextInt(2); // about seven in eight keys taken
            }
            long last = offsets.get(offsets.size() - 1);
            long base = switch (round) {
                case 0 -> Long.MIN_VALUE; // the least long is a key
                case 1 -> Long.MAX_VALUE - last; // the greatest is
                case 2 -> -last / 2;
                default -> type.contains("UNSIGNED") || random.nextBoolean() ? random.nextInt(1_000) : -random.nextInt(500);
            };
            TreeSet<Long> keys = offsets.stream().map(o -> base + o).collect(Collectors.toCollection(TreeSet::new));
            int chunkSize = 2 + random.nextInt(40);
            List<List<Long>> chunks = readInChunks(db, type, keys, chunkSize);
            String what = "round " + round + ", " + type + ", chunk size " + chunkSize + ", keys " + keys.first() + " to "
                    + keys.last();
            for (List<Long> chunk : chunks) {
                assertThat(chunk).as(what).isNotEmpty().hasSizeLessThanOrEqualTo(chunkSize);
            }
            assertThat(chunks).as(what + ": computed ends, each the chunk size less one after the chunk's first key")
                    .isEqualTo(computedChunks(keys, chunkSize));
        }
    }

    @Test
    void sparseKeysChunkByCountedEnds(MySqlDatabase db) {
        Random random = seeded();
        TreeSet<Long> keys = new TreeSet<>();
        while (keys.size() < 200) {
            keys.add(random.nextLong()); // far apart: a sliver of the key range
        }
        int chunkSize = 2 + random.nextInt(30);
        List<List<Long>> chunks = readInChunks(db, "BIGINT", keys, chunkSize);
        assertThat(chunks.stream().flatMap(List::stream).collect(Collectors.toList())).containsExactlyElementsOf(keys);
        for (List<Long> chunk : chunks.subList(0, chunks.size() - 1)) {
            assertThat(chunk).as("chunk size %d: counted ends", chunkSize).hasSize(chunkSize);
        }
    }

    /** The chunks that computed ends make of {@code keys}: each ends the chunk size less one after its first key. */
    private static List<List<Long>> computedChunks(TreeSet<Long> keys, int chunkSize) {
        List<List<Long>> chunks = new ArrayList<>();
        Long first = keys.first();
        while (first != null) {
            BigInteger exactEnd = BigInteger.valueOf(first).add(BigInteger.valueOf(chunkSize - 1L));
            Long end = exactEnd.compareTo(BigInteger.valueOf(keys.last())) >= 0 ? null : exactEnd.longValue();
            chunks.add(new ArrayList<>(end == null ? keys.tailSet(first) : keys.subSet(first, true, end, true)));
            first = end == null ? null : keys.higher(end);
        }
        return chunks;
    }

    /** The table's rows, keyed by {@code keys}, as the session plans and reads its chunks: each chunk's keys in order. */
    private static List<List<Long>> readInChunks(MySqlDatabase db, String type, Set<Long> keys, int chunkSize) {
        db.execute("DROP TABLE IF EXISTS keyed", "CREATE TABLE keyed (k " + type + " PRIMARY KEY, n INT)");
        List<Long> all = new ArrayList<>(keys);
        for (int from = 0; from < all.size(); from += 100) {
            db.execute("INSERT INTO keyed VALUES " + all.subList(from, Math.min(all.size(), from + 100)).stream()
                    .map(k -> "(" + k + ", 0)").collect(Collectors.joining(", ")));
        }
        db.execute("ANALYZE TABLE keyed"); // the row count the server estimates, which decides the way
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        List<List<Long>> chunks = new ArrayList<>();
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            TableDescription table = session.describe(TableId.of(db.name(), db.name(), "keyed"));
            ChunkKey key = ChunkKey.of(table, MySqlKeyOrder.INSTANCE, null, OPTION);
            Set<Long> seen = new HashSet<>();
            Object[] after = null;
            while (true) {
                Object[] upTo = session.nextChunkEnd(table, key.columns(), after, chunkSize);
                List<ChangeEvent> rows = new ArrayList<>();
                session.readChunk(table, key.columns(), after, upTo, rows::add);
                List<Long> chunk = rows.stream().map(e -> ((Number) e.after().get("k")).longValue())
                        .collect(Collectors.toList());
                chunk.forEach(k -> assertThat(seen.add(k)).as("key %d read once", k).isTrue());
                chunks.add(chunk);
                if (upTo == null) {
                    return chunks;
                }
                after = upTo;
            }
        }
    }

    private static Random seeded() {
        long seed = Long.getLong("rustcdc.chunks.seed", System.nanoTime());
        System.out.println("MySqlDenseKeyChunksITCase seed " + seed + " (replay with -Drustcdc.chunks.seed=" + seed + ")");
        return new Random(seed);
    }
}
