package io.rustcdc.flink.source.enumerator;

import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/** The enumerator holds these finished chunks; the reader may forget them. */
@Internal
public final class ChunksAcknowledgedEvent implements SourceEvent {
    private static final long serialVersionUID = 1L;

    private final List<String> splitIds;

    public ChunksAcknowledgedEvent(List<String> splitIds) {
        this.splitIds = List.copyOf(splitIds);
    }

    public List<String> splitIds() {
        return splitIds;
    }

    @Override
    public String toString() {
        return "ChunksAcknowledged" + splitIds;
    }
}
