package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.model.TableId;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * The reader that holds the stream has emitted a chunk of a table it snapshots while it streams;
 * {@code last}: the table's snapshot is complete. For the enumerator's state readout.
 */
@Internal
public final class StreamChunkReadEvent implements SourceEvent {
    private static final long serialVersionUID = 1L;

    private final TableId table;
    private final boolean last;

    public StreamChunkReadEvent(TableId table, boolean last) {
        this.table = table;
        this.last = last;
    }

    public TableId table() {
        return table;
    }

    public boolean last() {
        return last;
    }

    @Override
    public String toString() {
        return "StreamChunkRead{" + table + (last ? ", last" : "") + "}";
    }
}
