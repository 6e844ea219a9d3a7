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
     * key order too, and that every chunk but the last is full. Returns the number of rows read.
     */
    public static int countInChunks(CatalogSession<?, ?> session, TableDescription table, ChunkKey key,
            int chunkSize) {
        int rows = 0;
        Object[] after = null;
        int index = 0;
        while (true) {
            Object[] upTo = session.nextChunkEnd(table, key.columns(), after, chunkSize);
            if (after != null && upTo != null) {
                assertThat(key.compare(after, upTo)).as("chunk ends in order").isNegative();
            }
            ChunkSplit<Object> chunk = ChunkSplit.of(table.table(), key, index++, after, upTo);
            List<ChangeEvent> read = new ArrayList<>();
            session.readChunk(table, key.columns(), after, upTo, read::add);
            for (ChangeEvent e : read) {
                Object[] values = key.columns().stream().map(c -> e.after().get(c)).toArray();
                assertThat(chunk.contains(values)).as("row %s read in chunk %s", Arrays.toString(values), chunk)
                        .isTrue();
            }
            if (upTo != null) {
                assertThat(read).as("a full chunk").hasSize(chunkSize);
            }
            rows += read.size();
            if (upTo == null) {
                return rows;
            }
            after = upTo;
        }
    }
}
