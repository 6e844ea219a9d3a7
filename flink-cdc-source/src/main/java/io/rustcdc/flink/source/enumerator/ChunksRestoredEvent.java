package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.split.ChunkSplit;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * A reader restored from a checkpoint reads these chunks (unread in that checkpoint) again. The
 * enumerator, which lives on when a reader fails over, may have had them reported read since, with
 * marks that the chunks read again replace. Sent before the reader registers, so the enumerator
 * knows of them before it can make the stream split.
 */
@Internal
public final class ChunksRestoredEvent<M> implements SourceEvent {
    private static final long serialVersionUID = 1L;

    private final List<ChunkSplit<M>> chunks;

    public ChunksRestoredEvent(List<ChunkSplit<M>> chunks) {
        this.chunks = List.copyOf(chunks);
    }

    public List<ChunkSplit<M>> chunks() {
        return chunks;
    }

    @Override
    public String toString() {
        return "ChunksRestored" + chunks;
    }
}
