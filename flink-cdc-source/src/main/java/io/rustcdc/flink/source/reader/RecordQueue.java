package io.rustcdc.flink.source.reader;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * A bounded queue from the reader's worker thread to its task thread, with the availability
 * future Flink's source API waits on. A full queue blocks the worker: backpressure reaches the
 * database read, and at most {@code capacity} items are held.
 */
@Internal
final class RecordQueue {
    private final BlockingQueue<Fetched> queue;
    private CompletableFuture<Void> available = new CompletableFuture<>();

    RecordQueue(int capacity) {
        this.queue = new ArrayBlockingQueue<>(capacity);
    }

    /** Called by the worker; waits while the queue is full. */
    void put(Fetched item) throws InterruptedException {
        queue.put(item);
        signal();
    }

    /** Wakes the task thread, e.g. after the worker failed. */
    synchronized void signal() {
        available.complete(null);
    }

    @Nullable
    Fetched poll() {
        return queue.poll();
    }

    /** The next item, waiting at most {@code limit}; null when none came. */
    @Nullable
    Fetched poll(Duration limit) throws InterruptedException {
        return queue.poll(limit.toNanos(), TimeUnit.NANOSECONDS);
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    synchronized CompletableFuture<Void> available() {
        if (!queue.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        if (available.isDone()) {
            available = new CompletableFuture<>();
        }
        return available;
    }
}
