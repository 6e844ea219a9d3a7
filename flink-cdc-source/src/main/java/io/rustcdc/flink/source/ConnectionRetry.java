package io.rustcdc.flink.source;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import java.util.function.DoubleSupplier;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * How the source retries a failed connection to its database before it fails the task: a jittered,
 * truncated exponential back-off for {@linkplain #retries transient failures} ({@link
 * CdcException.Kind#CONNECTION}: network, timeouts, a server restarting, too many connections), at
 * most {@link #maxRetries} times in a row. Every other failure (a refused login, a missing slot, a
 * lost position, a configuration error) needs an operator and is never retried. Immutable.
 *
 * <p>Retry {@code n} (from 1) waits a random time between half and all of {@code min(maxDelay,
 * initialDelay * 2^(n-1))}; the count starts again once the connection works.
 *
 * <pre>{@code
 * ConnectionRetry retry = ConnectionRetry.of(5, Duration.ofMillis(300), Duration.ofSeconds(10));
 * }</pre>
 */
@PublicEvolving
public final class ConnectionRetry implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Duration MIN_DELAY = Duration.ofMillis(1);
    private static final Duration MAX_DELAY = Duration.ofMinutes(10);

    private final int maxRetries;
    private final Duration initialDelay;
    private final Duration maxDelay;

    private ConnectionRetry(int maxRetries, Duration initialDelay, Duration maxDelay) {
        this.maxRetries = maxRetries;
        this.initialDelay = initialDelay;
        this.maxDelay = maxDelay;
    }

    /**
     * A policy of at most {@code maxRetries} retries in a row (0: none), the first after about
     * {@code initialDelay}, none later than {@code maxDelay} after the failure.
     *
     * @throws CdcException of kind CONFIGURATION naming the option out of range
     */
    public static ConnectionRetry of(int maxRetries, Duration initialDelay, Duration maxDelay) {
        Objects.requireNonNull(initialDelay, "initialDelay");
        Objects.requireNonNull(maxDelay, "maxDelay");
        if (maxRetries < 0) {
            throw configuration("Option '" + ConnectionOptions.CONNECT_MAX_RETRIES.key() + "' must be 0 (no retry) or "
                    + "more, not " + maxRetries);
        }
        requireDelay(initialDelay, ConnectionOptions.CONNECT_RETRY_INITIAL_DELAY.key());
        requireDelay(maxDelay, ConnectionOptions.CONNECT_RETRY_MAX_DELAY.key());
        if (maxDelay.compareTo(initialDelay) < 0) {
            throw configuration("Option '" + ConnectionOptions.CONNECT_RETRY_MAX_DELAY.key() + "' (" + maxDelay
                    + ") must not be below '" + ConnectionOptions.CONNECT_RETRY_INITIAL_DELAY.key() + "' ("
                    + initialDelay + ")");
        }
        return new ConnectionRetry(maxRetries, initialDelay, maxDelay);
    }

    /** The default: the options' defaults. */
    public static ConnectionRetry defaults() {
        return of(ConnectionOptions.CONNECT_MAX_RETRIES.defaultValue(),
                ConnectionOptions.CONNECT_RETRY_INITIAL_DELAY.defaultValue(),
                ConnectionOptions.CONNECT_RETRY_MAX_DELAY.defaultValue());
    }

    /** No retry: every failure fails the task at once, for Flink's restart strategy to handle. */
    public static ConnectionRetry none() {
        return of(0, ConnectionOptions.CONNECT_RETRY_INITIAL_DELAY.defaultValue(),
                ConnectionOptions.CONNECT_RETRY_MAX_DELAY.defaultValue());
    }

    public int maxRetries() {
        return maxRetries;
    }

    public Duration initialDelay() {
        return initialDelay;
    }

    public Duration maxDelay() {
        return maxDelay;
    }

    /**
     * Whether {@code failure} may be retried: the first {@link CdcException} of its cause chain is of
     * kind {@link CdcException.Kind#CONNECTION}, and no interrupt is in the chain (a task being
     * cancelled). Anything else (a final kind, an exception no connector classified) is not.
     */
    public static boolean retries(@Nullable Throwable failure) {
        boolean connection = false;
        boolean decided = false;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            // not InterruptedIOException: its SocketTimeoutException is a read timeout, which is transient
            if (t instanceof InterruptedException || t instanceof java.nio.channels.ClosedByInterruptException) {
                return false;
            }
            if (!decided && t instanceof CdcException) {
                connection = ((CdcException) t).kind() == CdcException.Kind.CONNECTION;
                decided = true;
            }
        }
        return connection;
    }

    /**
     * The wait before retry {@code retry} (1 for the first): {@code random} (uniform in [0, 1)) picks it
     * between half and all of the retry's exponential step, which never exceeds {@link #maxDelay}.
     */
    public Duration delay(int retry, DoubleSupplier random) {
        if (retry < 1) {
            throw new IllegalArgumentException("retry " + retry);
        }
        long max = maxDelay.toNanos();
        long step = initialDelay.toNanos();
        for (int i = 1; i < retry && step < max; i++) {
            step = step > max / 2 ? max : step * 2;
        }
        step = Math.min(step, max);
        double r = random.getAsDouble();
        if (!(r >= 0 && r < 1)) {
            throw new IllegalArgumentException("random " + r);
        }
        long half = step / 2;
        return Duration.ofNanos(half + (long) ((step - half) * r));
    }

    private static void requireDelay(Duration delay, String option) {
        if (delay.compareTo(MIN_DELAY) < 0 || delay.compareTo(MAX_DELAY) > 0) {
            throw configuration("Option '" + option + "' must be 1 ms to 10 min, not " + delay);
        }
    }

    private static CdcException configuration(String message) {
        return new CdcException(CdcException.Kind.CONFIGURATION, message);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ConnectionRetry)) {
            return false;
        }
        ConnectionRetry r = (ConnectionRetry) o;
        return maxRetries == r.maxRetries && initialDelay.equals(r.initialDelay) && maxDelay.equals(r.maxDelay);
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxRetries, initialDelay, maxDelay);
    }

    @Override
    public String toString() {
        return maxRetries == 0 ? "no retry" : "up to " + maxRetries + " retries, " + initialDelay.toMillis() + " ms to "
                + maxDelay.toMillis() + " ms apart";
    }
}
