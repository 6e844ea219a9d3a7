package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.split.ChunkSplit;
import java.util.List;

/** A chunk read whole by the worker: its rows and the chunk with its mark. */
final class ChunkResult<M> {
    final ChunkSplit<M> chunk;
    final List<ChangeEvent> rows;

    ChunkResult(ChunkSplit<M> chunk, List<ChangeEvent> rows) {
        this.chunk = chunk;
        this.rows = rows;
    }
}
