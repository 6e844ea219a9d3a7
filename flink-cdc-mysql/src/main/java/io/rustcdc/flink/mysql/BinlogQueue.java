package io.rustcdc.flink.mysql;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.Event;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.annotation.Nullable;

/**
 * From the binlog client's thread to the polling thread: the events the client received, then its
 * failure or a backfill's end, in order, so that a failure surfaces before anything that followed it.
 * The client's thread blocks while the queue is full, until the stream closes.
 */
final class BinlogQueue {
    private static final int CAPACITY = 4096;
    /** Queued by a backfill's client when the server reached the binlog's end and closed the connection. */
    private static final Object END = new Object();

    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>(CAPACITY);
    private volatile boolean closing;

    /** Called on the client's thread for each event. */
    void event(Event event) {
        enqueue(event);
    }

    /** Called on the client's thread when it failed. */
    void fail(Exception e) {
        if (!closing) {
            enqueue(e);
        }
    }

    /** Called on a backfill's client's thread when the server closed the binlog at its end. */
    void end() {
        if (!closing) {
            enqueue(END);
        }
    }

    /**
     * Called on the client's thread, which holds the client's connect lock while it reads: it must not
     * wait on a full queue once the stream closes, or {@link BinaryLogClient#disconnect} (which waits
     * for that lock) would never return and the task would not end on cancellation.
     */
    private void enqueue(Object eventOrFailure) {
        try {
            while (!closing) {
                if (queue.offer(eventOrFailure, 100, TimeUnit.MILLISECONDS)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The next item, waiting at most {@code nanos}: an {@link Event}, the client's failure (an {@link
     * Exception}) or the binlog's end ({@link #isEnd}); null when none came.
     */
    @Nullable
    Object poll(long nanos) throws InterruptedException {
        return queue.poll(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }

    /** Whether {@code item} says that a backfill's binlog reached its end. */
    static boolean isEnd(Object item) {
        return item == END;
    }

    /** The stream closes: the client's thread no longer waits on a full queue, and queues nothing more. */
    void close() {
        closing = true;
    }
}
