package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.split.ChunkSplit;
import java.util.List;

/**
 * A chunk read whole by the worker: its rows and the chunk with its mark. An inline chunk belongs
 * to a table added while the stream runs, read by the stream's own reader between stream batches.
 */
final class ChunkResult<M> {
    final ChunkSplit<M> chunk;
    final List<ChangeEvent> rows;
    final boolean inline;

    ChunkResult(ChunkSplit<M> chunk, List<ChangeEvent> rows, boolean inline) {
        this.chunk = chunk;
        this.rows = rows;
        this.inline = inline;
    }
}
