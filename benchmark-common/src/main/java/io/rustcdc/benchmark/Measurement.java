package io.rustcdc.benchmark;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

/**
 * What the counting sink of either side records, in its JVM: how many events arrived, when the
 * last one did, and, while latency is measured, each event's delay from its commit.
 */
public final class Measurement {
    private static final AtomicLong COUNT = new AtomicLong();
    private static volatile long lastArrivalNanos;
    private static volatile long measureFromMillis = Long.MAX_VALUE;
    private static volatile ToLongFunction<String> commitMillis;
    private static long[] latencies = new long[1024];
    private static int latencyCount;
    private static volatile Throwable jobFailure;

    private Measurement() {}

    /** Called by the sink for every event; the sink runs with parallelism 1. */
    public static void arrived(String event) {
        COUNT.incrementAndGet();
        lastArrivalNanos = System.nanoTime();
        if (measureFromMillis != Long.MAX_VALUE) {
            long now = System.currentTimeMillis();
            long committed = commitMillis.applyAsLong(event);
            if (committed >= measureFromMillis) {
                record(now - committed);
            }
        }
    }

    private static synchronized void record(long latency) {
        if (latencyCount == latencies.length) {
            latencies = Arrays.copyOf(latencies, latencies.length * 2);
        }
        latencies[latencyCount++] = latency;
    }

    /** Called when the job ends; {@code failure} is null when it finished. */
    public static void ended(Throwable failure) {
        if (failure != null) {
            jobFailure = failure;
        }
    }

    static Throwable jobFailure() {
        return jobFailure;
    }

    static long count() {
        return COUNT.get();
    }

    static long lastArrivalNanos() {
        return lastArrivalNanos;
    }

    /** From now on, events committed at or after {@code fromMillis} are measured for latency. */
    static void measureLatency(long fromMillis, ToLongFunction<String> commitTime) {
        commitMillis = commitTime;
        measureFromMillis = fromMillis;
    }

    static synchronized int latencyCount() {
        return latencyCount;
    }

    /** p50, p99 and max of the measured latencies, in milliseconds. */
    static synchronized long[] latencyPercentiles() {
        long[] sorted = Arrays.copyOf(latencies, latencyCount);
        Arrays.sort(sorted);
        if (sorted.length == 0) {
            return new long[] {-1, -1, -1};
        }
        return new long[] {sorted[(int) (sorted.length * 0.50)],
            sorted[Math.min(sorted.length - 1, (int) (sorted.length * 0.99))], sorted[sorted.length - 1]};
    }
}
