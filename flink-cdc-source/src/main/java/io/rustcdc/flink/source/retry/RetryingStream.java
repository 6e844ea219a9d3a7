package io.rustcdc.flink.source.retry;

import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.EmittedShapes;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A change stream that, when a poll fails with a transient connection failure, closes the
 * connector's stream, backs off and opens a new one at the position of the last record it returned
 * (the reader holds every record returned, so none is lost and none repeated), as a restart from
 * that position would. What the reader told the old stream is told to the new one: its metric group
 * (whose gauges then read the new stream), the captured tables and the last confirmed position; and
 * the shapes it resumed from, with what every record returned since said of them, as a restore at
 * that position would give them ({@link EmittedShapes}). The bytes read ({@link #bytesRead}) count on
 * across a reopen. One
 * thread polls; {@link #confirm} and {@link #close} may be called from any thread.
 */
@Internal
final class RetryingStream<P> implements ChangeStream<P> {
    private static final Logger LOG = LoggerFactory.getLogger(RetryingStream.class);

    private final String what;
    private final Function<P, ChangeStream<P>> opener;
    private final ConnectionRetry policy;
    private final Retrier retrier;
    /** The connector's stream; null while it is being reopened and once closed. Whoever takes it out closes it. */
    private final AtomicReference<ChangeStream<P>> stream = new AtomicReference<>();
    private final Object confirmLock = new Object();
    private P resumeFrom;
    private long openedNanos;
    @Nullable private volatile StreamMetrics metrics;
    @Nullable private volatile Set<TableId> captured;
    @Nullable private P confirmed;
    /** The shapes the stream resumed from and every event returned since; null until the reader gives them. */
    @Nullable private EmittedShapes shapes;
    /** What the connector's streams closed after a failure had read ({@link #bytesRead}); the polling thread's. */
    private long closedBytes;

    private RetryingStream(String what, Function<P, ChangeStream<P>> opener, P from, ConnectionRetry policy,
            Retrier retrier) {
        this.what = what;
        this.opener = opener;
        this.resumeFrom = from;
        this.policy = policy;
        this.retrier = retrier;
    }

    /** The stream at {@code from}, opened with retries. */
    static <P> RetryingStream<P> open(String what, Function<P, ChangeStream<P>> opener, P from,
            ConnectionRetry policy, Retrier retrier) {
        RetryingStream<P> s = new RetryingStream<>(what, opener, from, policy, retrier);
        try {
            s.reopen();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while opening the " + what, e);
        }
        return s;
    }

    @Override
    @Nullable
    public StreamRecord<P> poll(Duration timeout) throws InterruptedException {
        while (true) {
            ChangeStream<P> s = stream.get();
            if (s == null) {
                s = reopen();
            }
            try {
                StreamRecord<P> record = s.poll(timeout);
                if (record != null) {
                    resumeFrom = record.position();
                    if (shapes != null && record.event() != null) {
                        shapes.record(record.event());
                    }
                    retrier.succeeded();
                } else if (System.nanoTime() - openedNanos >= policy.maxDelay().toNanos()) {
                    retrier.succeeded(); // up longer than the longest wait: recovered, though idle
                }
                return record;
            } catch (RuntimeException e) {
                if (stream.compareAndSet(s, null)) {
                    closedBytes += s.bytesRead();
                    closeQuietly(s);
                }
                retrier.backOff("the " + what + " at " + resumeFrom, e);
            }
        }
    }

    private ChangeStream<P> reopen() throws InterruptedException {
        boolean again = openedNanos != 0;
        while (true) {
            if (retrier.isClosed()) {
                throw new IllegalStateException("The " + what + " is closed");
            }
            ChangeStream<P> s;
            try {
                s = opener.apply(resumeFrom);
            } catch (RuntimeException e) {
                retrier.backOff((again ? "reopening the " : "opening the ") + what + " at " + resumeFrom, e);
                continue;
            }
            StreamMetrics m = metrics;
            if (m != null) {
                s.registerMetrics(m);
            }
            Set<TableId> tables = captured;
            if (tables != null) {
                s.captured(tables);
            }
            if (shapes != null) {
                s.resumeShapes(shapes.copy());
            }
            synchronized (confirmLock) {
                stream.set(s);
                if (confirmed != null) {
                    s.confirm(confirmed);
                }
            }
            if (retrier.isClosed() && stream.compareAndSet(s, null)) { // closed while it opened
                s.close();
                throw new IllegalStateException("The " + what + " is closed");
            }
            openedNanos = System.nanoTime();
            if (again) {
                LOG.info("Reopened the {} at {}", what, resumeFrom);
            }
            return s;
        }
    }

    @Override
    public void confirm(P position) {
        synchronized (confirmLock) {
            confirmed = position;
            ChangeStream<P> s = stream.get();
            if (s != null) {
                s.confirm(position);
            }
        }
    }

    @Override
    public void registerMetrics(MetricGroup group) {
        StreamMetrics m = new StreamMetrics(group);
        metrics = m;
        ChangeStream<P> s = stream.get();
        if (s != null) {
            s.registerMetrics(m);
        }
    }

    /** What every stream opened so far has read: the count goes on across a reopen. */
    @Override
    public long bytesRead() {
        ChangeStream<P> s = stream.get();
        return closedBytes + (s != null ? s.bytesRead() : 0);
    }

    @Override
    public void captured(Set<TableId> tables) {
        captured = Set.copyOf(tables);
        ChangeStream<P> s = stream.get();
        if (s != null) {
            s.captured(tables);
        }
    }

    /** Called by the polling thread, as {@link #poll} is. */
    @Override
    public void resumeShapes(EmittedShapes resumed) {
        shapes = resumed.copy();
        ChangeStream<P> s = stream.get();
        if (s != null) {
            s.resumeShapes(resumed);
        }
    }

    @Override
    public void close() {
        retrier.close();
        ChangeStream<P> s = stream.getAndSet(null);
        if (s != null) {
            s.close();
        }
    }

    private static void closeQuietly(ChangeStream<?> s) {
        try {
            s.close();
        } catch (RuntimeException e) {
            LOG.debug("Closing a failed change stream failed", e);
        }
    }
}
