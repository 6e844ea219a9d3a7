package io.rustcdc.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Random key sets of one integer column, and a table keyed by one read chunk by chunk through a connector's
 * catalogue session, for the tests of computed chunk ends ({@link io.rustcdc.flink.source.spi.DenseKeyChunks}).
 */
public final class IntegerKeyChunks {
    private IntegerKeyChunks() {}

    /**
     * 100 to 500 keys (fewer where the type has fewer) taking about nine in ten of a range of integers within
     * {@code least} to {@code greatest} (a type's range), with gaps: from {@code least} in round 0, up to {@code
     * greatest} in round 1, around zero (or mid-range, for a type without negative values) in round 2, else from a
     * random place.
     */
    public static TreeSet<Long> denseKeys(Random random, int round, long least, long greatest) {
        // the span less one, at most the greatest long (the whole long range's is larger)
        long room = greatest - least >= 0 ? greatest - least : Long.MAX_VALUE;
        List<Long> offsets = new ArrayList<>();
        long offset = 0;
        for (int i = 100 + random.nextInt(400); i > 0 && offset <= room; i--) {
            offsets.add(offset);
            offset += random.nextInt(10) < 9 ? 1 : 2 + random.nextInt(2);
        }
        long last = offsets.get(offsets.size() - 1);
        long free = room - last; // how far the keys may be moved up from least
        long base = switch (round) {
            case 0 -> least;
            case 1 -> greatest - last;
            case 2 -> least < 0 && greatest > last ? Math.max(least, -last / 2) : least + free / 2;
            default -> least + (long) (random.nextDouble() * free);
        };
        return offsets.stream().map(o -> base + o).collect(Collectors.toCollection(TreeSet::new));
    }

    /** {@code count} keys drawn from the whole long range: a sliver of it, far apart. */
    public static TreeSet<Long> sparseKeys(Random random, int count) {
        TreeSet<Long> keys = new TreeSet<>();
        while (keys.size() < count) {
            keys.add(random.nextLong());
        }
        return keys;
    }

    /** The chunks that computed ends make of {@code keys}: each ends the chunk size less one after its first key. */
    public static List<List<Long>> computedChunks(TreeSet<Long> keys, int chunkSize) {
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

    /**
     * The table's rows as the session plans and reads its chunks of {@code keyColumn}: each chunk's keys in the
     * order read, every key read once.
     */
    public static List<List<Long>> readInChunks(CatalogSession<?, ?> session, TableDescription table, String keyColumn,
            int chunkSize) {
        List<List<Long>> chunks = readChunks(session, table, keyColumn, chunkSize);
        Set<Long> seen = new HashSet<>();
        chunks.forEach(chunk -> chunk.forEach(k -> assertThat(seen.add(k)).as("key %d read once", k).isTrue()));
        return chunks;
    }

    /**
     * A table whose chunk key column {@code n} (not its primary key) holds each of 0 to 49 ten times is chunked
     * by counted ends: computed ones, spanning the chunk size's integers, would hold ten times the chunk size.
     */
    public static void checkRepeatedKeyCounted(CatalogSession<?, ?> session, TableDescription table) {
        int chunkSize = 5;
        List<List<Long>> chunks = readChunks(session, table, "n", chunkSize);
        assertThat(chunks.stream().mapToInt(List::size).sum()).isEqualTo(500);
        for (List<Long> chunk : chunks) {
            assertThat(chunk).as("a chunk of a repeated key: the chunk size and the rest of its last value's rows")
                    .hasSizeLessThanOrEqualTo(chunkSize + 9);
        }
    }

    /**
     * The rows of a table of dense keys {@code keys} that row filter {@code evenKeys} selects (the keys divisible by
     * two) are chunked by counted ends: every chunk but the last holds exactly the chunk size of them. Computed
     * ends, spanning the chunk size's integers, would hold about half of it.
     */
    public static void checkRowFilterCounted(CatalogSession<?, ?> session, TableDescription table, String keyColumn,
            TreeSet<Long> keys, String evenKeys) {
        int chunkSize = 4;
        List<List<Long>> chunks = readChunks(session, table, keyColumn, chunkSize, evenKeys);
        assertThat(chunks.stream().flatMap(List::stream).collect(Collectors.toList())).as("the even keys, in order")
                .containsExactlyElementsOf(keys.stream().filter(k -> k % 2 == 0).collect(Collectors.toList()));
        for (List<Long> chunk : chunks.subList(0, chunks.size() - 1)) {
            assertThat(chunk).as("chunk size %d under a row filter: counted ends", chunkSize).hasSize(chunkSize);
        }
    }

    private static List<List<Long>> readChunks(CatalogSession<?, ?> session, TableDescription table, String keyColumn,
            int chunkSize) {
        return readChunks(session, table, keyColumn, chunkSize, null);
    }

    /**
     * The table's rows (those {@code rowFilter} selects, all when null) as the session plans and reads its chunks of
     * {@code keyColumn}: each chunk's keys as read.
     */
    private static List<List<Long>> readChunks(CatalogSession<?, ?> session, TableDescription table, String keyColumn,
            int chunkSize, String rowFilter) {
        List<String> keyColumns = List.of(keyColumn);
        List<List<Long>> chunks = new ArrayList<>();
        Object[] after = null;
        while (true) {
            Object[] upTo = session.nextChunkEnd(table, keyColumns, after, chunkSize, rowFilter);
            List<ChangeEvent> rows = new ArrayList<>();
            session.readChunk(table, keyColumns, after, upTo, rowFilter, rows::add);
            chunks.add(rows.stream().map(e -> ((Number) e.after().get(keyColumn)).longValue()).collect(Collectors.toList()));
            if (upTo == null) {
                return chunks;
            }
            after = upTo;
        }
    }

    /** Checks chunks read of dense keys: none empty or over the chunk size, each where computed ends put it. */
    public static void checkComputed(List<List<Long>> chunks, TreeSet<Long> keys, int chunkSize, String what) {
        for (List<Long> chunk : chunks) {
            assertThat(chunk).as(what).isNotEmpty().hasSizeLessThanOrEqualTo(chunkSize);
        }
        assertThat(chunks).as(what + ": computed ends, each the chunk size less one after the chunk's first key")
                .isEqualTo(computedChunks(keys, chunkSize));
    }

    /** Checks chunks read of sparse keys: every key, and every chunk but the last of exactly the chunk size (counted). */
    public static void checkCounted(List<List<Long>> chunks, TreeSet<Long> keys, int chunkSize) {
        assertThat(chunks.stream().flatMap(List::stream).collect(Collectors.toList())).containsExactlyElementsOf(keys);
        for (List<Long> chunk : chunks.subList(0, chunks.size() - 1)) {
            assertThat(chunk).as("chunk size %d: counted ends", chunkSize).hasSize(chunkSize);
        }
    }
}
