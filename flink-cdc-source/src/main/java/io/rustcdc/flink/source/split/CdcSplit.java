package io.rustcdc.flink.source.split;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A unit of work of a {@link io.rustcdc.flink.source.CdcSource}: a snapshot chunk ({@link ChunkSplit})
 * or the stream ({@link StreamSplit}), and nothing else: code that handles a split tells the two apart
 * with a type pattern, {@code if (split instanceof StreamSplit<?, ?> stream)}.
 */
@Internal
public abstract sealed class CdcSplit implements SourceSplit permits ChunkSplit, StreamSplit {
    CdcSplit() {}
}
