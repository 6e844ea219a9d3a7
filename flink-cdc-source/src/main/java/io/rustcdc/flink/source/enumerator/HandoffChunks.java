package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.split.ChunkSplit;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;

/**
 * The read chunks the stream split carries into its handoff: every chunk of each table one of whose
 * chunks may still reflect a change at or after the stream's start. A table is kept or left out
 * whole: the handoff looks a changed key up among its table's chunks, which must cover the key space,
 * and a chunk that can reflect no such change decides nothing wrong (its mark reflects none of them).
 */
@Internal
final class HandoffChunks {
    private HandoffChunks() {}

    static <P extends SourcePosition & Comparable<P>, M extends Serializable> List<ChunkSplit<M>> of(
            CdcConnector<P, M> connector, List<ChunkSplit<M>> read, P streamStart) {
        Map<TableId, P> ends = new HashMap<>();
        for (ChunkSplit<M> chunk : read) {
            ends.merge(chunk.table(), connector.handoffEnd(chunk.mark()), (a, b) -> a.compareTo(b) >= 0 ? a : b);
        }
        List<ChunkSplit<M>> handoff = new ArrayList<>();
        for (ChunkSplit<M> chunk : read) {
            if (ends.get(chunk.table()).compareTo(streamStart) > 0) {
                handoff.add(chunk);
            }
        }
        return handoff;
    }
}
