package io.rustcdc.flink.source.enumerator;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/** A reader holds the stream split (assigned or restored): the enumerator may hand it added tables. */
@Internal
public final class StreamOwnerEvent implements SourceEvent {
    private static final long serialVersionUID = 1L;

    @Override
    public String toString() {
        return "StreamOwner";
    }
}
