package io.rustcdc.flink.source.reader;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;

/**
 * Flink's {@code numBytesIn} of a reader, fed from what a connector's session or stream says it has
 * read ({@code bytesRead()}, a running total): each call adds what the total grew by. One per total
 * followed; used by the reader's worker thread only, the counter's one writer.
 */
@Internal
final class BytesIn {
    private final Counter counter;
    private long seen;

    BytesIn(Counter counter) {
        this.counter = counter;
    }

    /** Follows a total from {@code total} on (a session or stream taken up, whose earlier bytes are counted). */
    void from(long total) {
        seen = total;
    }

    /** Adds what {@code total} grew by since it was last seen. */
    void to(long total) {
        if (total > seen) {
            counter.inc(total - seen);
            seen = total;
        }
    }
}
