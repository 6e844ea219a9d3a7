package io.rustcdc.flink.testing;

import java.time.Duration;
import java.util.concurrent.Callable;

/** Waits for a condition with a deadline instead of sleeping a fixed time. */
public final class Poll {
    private Poll() {}

    /**
     * Calls {@code condition} until it returns true or {@code timeout} passes.
     *
     * @throws AssertionError naming {@code what} when the deadline passes; the last exception the
     *     condition threw, if any, is attached
     */
    public static void until(String what, Duration timeout, Callable<Boolean> condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        long pauseMillis = 10;
        while (true) {
            try {
                if (Boolean.TRUE.equals(condition.call())) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            if (System.nanoTime() > deadline) {
                AssertionError error = new AssertionError("Timed out after " + timeout + " waiting for " + what);
                if (last != null) {
                    error.initCause(last);
                }
                throw error;
            }
            try {
                Thread.sleep(pauseMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted while waiting for " + what, e);
            }
            pauseMillis = Math.min(200, pauseMillis * 2);
        }
    }
}
