package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.split.ChunkSplit;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;

/**
 * The read chunks the stream split carries into its handoff: every chunk of each table one of whose
 * chunks may still reflect a change at or after the stream's start. A table is kept or left out
 * whole: the handoff looks a changed key up among its table's chunks, which must cover the key space,
 * and a chunk that can reflect no such change decides nothing wrong (its mark reflects none of them). A table
 * whose chunks do not cover its key space ({@link #covers}) is left out.
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
        Map<TableId, List<ChunkSplit<M>>> byTable = new HashMap<>();
        read.forEach(c -> byTable.computeIfAbsent(c.table(), t -> new ArrayList<>()).add(c));
        // each table decided once: its chunks go into the handoff whole or not at all
        Set<TableId> handedOff = new HashSet<>();
        byTable.forEach((table, chunks) -> {
            if (ends.get(table).compareTo(streamStart) > 0 && covers(chunks)) {
                handedOff.add(table);
            }
        });
        List<ChunkSplit<M>> handoff = new ArrayList<>();
        for (ChunkSplit<M> chunk : read) {
            if (handedOff.contains(chunk.table())) {
                handoff.add(chunk);
            }
        }
        return handoff;
    }

    /**
     * Whether a table's read chunks cover its key space (indexes 0 to n-1, the first open below, the last above),
     * as the handoff needs. Every table read to its end does; chunks of a table whose snapshot was stopped that a
     * reader restored from a checkpoint read again after a restore of the enumerator (which forgot the stop's
     * drop) do not: they are left out, and the stream emits every change of such a table if it is captured.
     */
    static <M> boolean covers(List<ChunkSplit<M>> chunks) {
        List<ChunkSplit<M>> sorted = new ArrayList<>(chunks);
        sorted.sort(Comparator.comparingInt(ChunkSplit::index));
        for (int i = 0; i < sorted.size(); i++) {
            if (sorted.get(i).index() != i) {
                return false;
            }
        }
        return !sorted.isEmpty() && sorted.get(0).after() == null && sorted.get(sorted.size() - 1).upTo() == null;
    }
}
