package io.rustcdc.flink.source.reader;

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;

/**
 * Hands deserialized records to the current {@link ReaderOutput}, stamped with their commit time
 * where known (so Flink reports the emit lag), and counts them.
 */
final class OutputCollector<T> implements Collector<T> {
    /** No commit time: the record goes out without a timestamp. */
    static final long NO_TIMESTAMP = Long.MIN_VALUE;

    private final Counter recordsIn;
    private ReaderOutput<T> output;
    private long timestamp = NO_TIMESTAMP;

    OutputCollector(Counter recordsIn) {
        this.recordsIn = recordsIn;
    }

    /** The output of the current {@code pollNext} call. */
    void output(ReaderOutput<T> output) {
        this.output = output;
    }

    ReaderOutput<T> output() {
        return output;
    }

    /** The timestamp of the records collected next, {@link #NO_TIMESTAMP} for none. */
    void timestamp(long timestamp) {
        this.timestamp = timestamp;
    }

    @Override
    public void collect(T record) {
        recordsIn.inc();
        if (timestamp == NO_TIMESTAMP) {
            output.collect(record);
        } else {
            output.collect(record, timestamp);
        }
    }

    @Override
    public void close() {}
}
