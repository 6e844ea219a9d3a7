package io.rustcdc.flink.source.split;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;

/** A unit of work of a {@link io.rustcdc.flink.source.CdcSource}: a snapshot chunk or the stream. */
@Internal
public abstract class CdcSplit implements SourceSplit {
    CdcSplit() {}

    public abstract boolean isStream();
}
