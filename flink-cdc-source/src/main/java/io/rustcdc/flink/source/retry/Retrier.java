package io.rustcdc.flink.source.retry;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.ConnectionOptions;
import io.rustcdc.flink.source.ConnectionRetry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The back-off of one session or stream: counts its failures in a row, decides with its {@link
 * ConnectionRetry} whether one more retry follows, logs it, counts it in the retry metric and waits.
 * Used by one thread; {@link #close} may be called from any, and ends a wait at once.
 */
@Internal
final class Retrier {
    private static final Logger LOG = LoggerFactory.getLogger(Retrier.class);

    private final ConnectionRetry policy;
    private final Counter retries;
    private final CountDownLatch closed = new CountDownLatch(1);
    private int failures;
    private long firstFailureNanos;

    Retrier(ConnectionRetry policy, Counter retries) {
        this.policy = policy;
        this.retries = retries;
    }

    /**
     * Returns after the back-off when {@code failure} of {@code what} may be retried; otherwise
     * throws: {@code failure} itself when it is not transient, retries are off, this is closed or the
     * thread interrupted (a task being cancelled), a
     * {@link CdcException} of kind CONNECTION that says the retries are used up (the cause attached).
     *
     * @throws InterruptedException when interrupted while waiting
     */
    void backOff(String what, RuntimeException failure) throws InterruptedException {
        if (policy.maxRetries() == 0 || !ConnectionRetry.retries(failure) || isClosed()
                || Thread.currentThread().isInterrupted()) {
            throw failure;
        }
        if (failures == 0) {
            firstFailureNanos = System.nanoTime();
        }
        failures++;
        if (failures > policy.maxRetries()) {
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - firstFailureNanos);
            int retried = policy.maxRetries();
            failures = 0;
            throw new CdcException(CdcException.Kind.CONNECTION, "Gave up on " + what + " after " + retried
                    + (retried == 1 ? " retry" : " retries") + " in " + seconds + " s: " + sentence(failure.getMessage())
                    + " Raise '" + ConnectionOptions.CONNECT_MAX_RETRIES.key() + "' or '"
                    + ConnectionOptions.CONNECT_RETRY_MAX_DELAY.key() + "' to wait longer for the database.", failure);
        }
        Duration delay = policy.delay(failures, ThreadLocalRandom.current()::nextDouble);
        retries.inc();
        LOG.warn("Connection failure of {}; retry {} of {} in {} ms: {}", what, failures, policy.maxRetries(),
                delay.toMillis(), failure.getMessage());
        if (closed.await(delay.toNanos(), TimeUnit.NANOSECONDS)) {
            throw failure;
        }
    }

    /** {@code message} ending in one full stop. */
    private static String sentence(String message) {
        String m = message == null ? "" : message.strip();
        while (m.endsWith(".")) {
            m = m.substring(0, m.length() - 1);
        }
        return m + ".";
    }

    /** The connection works again: the next failure starts a new series of retries. */
    void succeeded() {
        failures = 0;
    }

    boolean isClosed() {
        return closed.getCount() == 0;
    }

    /** No more retries; a wait in progress ends with its failure. */
    void close() {
        closed.countDown();
    }
}
