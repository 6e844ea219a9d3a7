package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.model.TableId;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * The tables whose snapshot, read by the reader that holds the stream, is paused (no new chunk is
 * read) or stopped (its remaining chunks are dropped). Each event replaces the last; the enumerator
 * sends it after every change and before its answer to a {@link StreamOwnerEvent}.
 */
@Internal
public final class SnapshotControlEvent implements SourceEvent {
    private static final long serialVersionUID = 1L;

    private final Set<TableId> paused;
    private final Set<TableId> stopped;

    public SnapshotControlEvent(Set<TableId> paused, Set<TableId> stopped) {
        this.paused = Set.copyOf(paused);
        this.stopped = Set.copyOf(stopped);
    }

    public Set<TableId> paused() {
        return paused;
    }

    public Set<TableId> stopped() {
        return stopped;
    }

    @Override
    public String toString() {
        return "SnapshotControl{paused " + paused + ", stopped " + stopped + "}";
    }
}
