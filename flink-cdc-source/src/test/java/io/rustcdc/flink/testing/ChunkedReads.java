package io.rustcdc.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkSplit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A table read chunk by chunk through a connector's catalogue session, as the source reads it. */
public final class ChunkedReads {
    private ChunkedReads() {}

    /**
     * Reads {@code table} in chunks of {@code chunkSize} rows found by the server; checks that the chunk
     * ends come in the key order's order, that every row read lies in its chunk (after, upTo] by the
     * key order too, and that every chunk but the last is full. Returns the number of rows read. A key
     * {@linkplain ChunkKey#placedByServer placed by the server} is checked by the server's placement
     * instead: each chunk end after the one before, and every row read placed in the chunk that read it.
     */
    public static int countInChunks(CatalogSession<?, ?> session, TableDescription table, ChunkKey key,
            int chunkSize) {
        int rows = 0;
        Object[] after = null;
        int index = 0;
        List<Object[]> bounds = new ArrayList<>();
        List<Object[]> keys = new ArrayList<>();
        List<Integer> chunks = new ArrayList<>();
        while (true) {
            Object[] upTo = session.nextChunkEnd(table, key.columns(), after, chunkSize);
            if (after != null && upTo != null && !key.placedByServer()) {
                assertThat(key.compare(after, upTo)).as("chunk ends in order").isNegative();
            } else if (after != null && upTo != null) {
                assertThat(session.placeKeys(table.table(), key.columns(), key.types(), key.collations(),
                        List.<Object[]>of(after), List.<Object[]>of(upTo))).as("chunk ends in the server's order")
                        .containsExactly(1);
            }
            ChunkSplit<Object> chunk = ChunkSplit.of(table.table(), key, index++, after, upTo);
            List<ChangeEvent> read = new ArrayList<>();
            session.readChunk(table, key.columns(), after, upTo, read::add);
            for (ChangeEvent e : read) {
                Object[] values = key.columns().stream().map(c -> e.after().get(c)).toArray();
                if (key.placedByServer()) {
                    keys.add(values);
                    chunks.add(chunk.index());
                } else {
                    assertThat(chunk.contains(values)).as("row %s read in chunk %s", Arrays.toString(values), chunk)
                            .isTrue();
                }
            }
            if (upTo != null) {
                assertThat(read).as("a full chunk").hasSize(chunkSize);
                bounds.add(upTo);
            }
            rows += read.size();
            if (upTo == null) {
                break;
            }
            after = upTo;
        }
        if (key.placedByServer()) {
            int[] placed = session.placeKeys(table.table(), key.columns(), key.types(), key.collations(), bounds, keys);
            for (int i = 0; i < placed.length; i++) {
                assertThat(placed[i]).as("row %s placed in the chunk that read it", Arrays.toString(keys.get(i)))
                        .isEqualTo(chunks.get(i));
            }
        }
        return rows;
    }
}
