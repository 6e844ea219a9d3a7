package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.model.TableId;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * A reader holds the stream split (assigned or restored) and waits, before it streams, for the
 * enumerator's {@link TablesAddedEvent}: the tables added while the stream ran that its split does
 * not hold, among them any that an attempt which failed since the split's checkpoint had taken.
 */
@Internal
public final class StreamOwnerEvent implements SourceEvent {
    private static final long serialVersionUID = 1L;

    private final Set<TableId> captured;
    private final boolean restored;

    /**
     * @param captured the tables the split captures or is snapshotting
     * @param restored whether the split came from the reader's restored state
     */
    public StreamOwnerEvent(Set<TableId> captured, boolean restored) {
        this.captured = Set.copyOf(captured);
        this.restored = restored;
    }

    public Set<TableId> captured() {
        return captured;
    }

    public boolean restored() {
        return restored;
    }

    @Override
    public String toString() {
        return "StreamOwner" + (restored ? "(restored)" : "") + captured;
    }
}
