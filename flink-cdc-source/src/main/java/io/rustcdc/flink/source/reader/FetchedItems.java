package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.FinalFailure;
import java.time.Duration;
import javax.annotation.Nullable;

/**
 * The task thread's side of the {@link RecordQueue}: the items the {@link ReaderWorker} read, and its
 * failure, rethrown (marked final where it is) before any further item is taken.
 */
final class FetchedItems {
    /** How long the task thread waits for the next item before it looks for a failure of the worker. */
    private static final Duration ROWS_WAIT = Duration.ofMillis(100);

    private final RecordQueue queue;
    private final ReaderWorker<?, ?> worker;

    FetchedItems(RecordQueue queue, ReaderWorker<?, ?> worker) {
        this.queue = queue;
        this.worker = worker;
    }

    /** Throws the worker's failure, if it failed. */
    void throwIfFailed() throws Exception {
        Throwable failure = worker.failure();
        if (failure != null) {
            throw FinalFailure.mark(failure);
        }
    }

    /** The next item if one is there; null if none. */
    @Nullable
    Fetched poll() {
        return queue.poll();
    }

    /** The next item, waiting for the worker; an interrupt or a failure of the worker ends the wait. */
    Fetched next() throws Exception {
        while (true) {
            throwIfFailed();
            Fetched next = queue.poll(ROWS_WAIT);
            if (next != null) {
                return next;
            }
        }
    }
}
