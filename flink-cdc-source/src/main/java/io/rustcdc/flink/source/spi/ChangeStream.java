package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.model.TableId;
import java.time.Duration;
import java.util.Set;
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

    /**
     * Bytes this stream has read from the database since it opened, as the connector counts them (its
     * documentation says what it counts); never decreasing. The reader adds what it grew by to Flink's
     * {@code numBytesIn}. Called by the thread that polls; 0 when the connector counts nothing.
     */
    default long bytesRead() {
        return 0;
    }

    /**
     * The tables whose changes the reader delivers as a changelog, now: those the filter selects minus
     * those not snapshotted yet. Called by the polling thread before the first poll, and again, in
     * the stream's order, when a table joins (its snapshot was read). A connector may use it to fail
     * on a change that brings rows into a captured table from one that is not (a rename), whose rows
     * the changelog never held. Until it is called, every table the filter selects counts.
     */
    default void captured(Set<TableId> tables) {}

    /**
     * What the stream's events said of each table's shape before the position it opened at, as the
     * source emitted them (kept in the stream split's state, so empty on a first start): called by the
     * polling thread once, before the first poll, with a copy the stream may keep. A connector that
     * classifies a schema change against the shape it held before it may start from these instead of
     * none; one that does not ignores them.
     */
    default void resumeShapes(EmittedShapes shapes) {}

    @Override
    void close();
}
