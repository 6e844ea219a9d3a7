package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.split.ChunkSplit;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * A reader has emitted these chunks entirely; each carries its mark. The reader keeps them in its
 * state until {@link ChunksAcknowledgedEvent} says the enumerator has them, so a chunk finished
 * around a checkpoint is never lost between the two.
 */
@Internal
public final class ChunksFinishedEvent<M> implements SourceEvent {
    private static final long serialVersionUID = 1L;

    private final List<ChunkSplit<M>> chunks;

    public ChunksFinishedEvent(List<ChunkSplit<M>> chunks) {
        this.chunks = List.copyOf(chunks);
    }

    public List<ChunkSplit<M>> chunks() {
        return chunks;
    }

    @Override
    public String toString() {
        return "ChunksFinished" + chunks;
    }
}
