package io.rustcdc.flink.source.spi;

import java.time.Duration;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A database's change log, read from a position. Not thread-safe: one reader polls it.
 *
 * <p>Nothing is confirmed to the database on its own: {@link #confirm} is called only for a
 * position a completed Flink checkpoint holds.
 */
@PublicEvolving
public interface ChangeStream<P> extends AutoCloseable {

    /**
     * The next record, waiting at most {@code timeout}; null when none arrived. A record without
     * an event only moves the position forward (an idle database's log still advances).
     */
    @Nullable
    StreamRecord<P> poll(Duration timeout) throws InterruptedException;

    /**
     * Tells the database that everything before {@code position} is durably taken. Must be safe to
     * call from any thread: the reader calls it when a checkpoint completes.
     */
    void confirm(P position);

    /**
     * Registers the connector's own gauges (PostgreSQL: the slot's lag and WAL status). Gauges are
     * read from other threads.
     */
    default void registerMetrics(org.apache.flink.metrics.MetricGroup group) {}

    @Override
    void close();
}
