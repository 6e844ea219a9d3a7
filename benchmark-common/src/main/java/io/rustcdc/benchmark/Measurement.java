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
    private static volatile long firstArrivalNanos;
    private static volatile long lastArrivalNanos;
    private static volatile long measureFromMillis = Long.MAX_VALUE;
    private static volatile ToLongFunction<String> commitMillis;
    private static long[] latencies = new long[1024];
    private static int latencyCount;
    private static volatile Throwable jobFailure;
    /** Whether the job has ended (finished, failed or cancelled). */
    private static volatile boolean ended;
    /** The characters of the String events, or the bytes of the byte[] ones, that arrived: written by the one sink. */
    private static long eventLength;

    private Measurement() {}

    /** Called by the sink for every event; the sink runs with parallelism 1. */
    public static void arrived(String event) {
        eventLength += event.length(); // before the count, which publishes it
        if (countedWhileMeasuringLatency()) {
            long now = System.currentTimeMillis();
            measure(now, commitMillis.applyAsLong(event)); // commitMillis is set before measureFromMillis
        }
    }

    /**
     * Called by a sink whose events are not the JSON text the run's {@link BenchmarkRun#main} reads
     * commit times from (the SQL path's rows, our JSON path's bytes), or which reads them itself: {@code
     * commitOf} gives an event's commit time in epoch milliseconds, and is called only while latency is measured.
     */
    public static <T> void arrived(T event, ToLongFunction<? super T> commitOf) {
        if (event instanceof String) {
            eventLength += ((String) event).length(); // before the count, which publishes it
        } else if (event instanceof byte[]) {
            eventLength += ((byte[]) event).length;
        }
        if (countedWhileMeasuringLatency()) {
            long now = System.currentTimeMillis();
            measure(now, commitOf.applyAsLong(event));
        }
    }

    /** Counts an arrival; whether its latency is to be measured. */
    private static boolean countedWhileMeasuringLatency() {
        long now = System.nanoTime();
        if (COUNT.incrementAndGet() == 1) {
            firstArrivalNanos = now;
        }
        lastArrivalNanos = now;
        return measureFromMillis != Long.MAX_VALUE;
    }

    private static void measure(long now, long committedMillis) {
        if (committedMillis >= measureFromMillis) {
            record(now - committedMillis);
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
        ended = true;
    }

    /** Waits until the job has ended ({@link #ended}); false if it has not within {@code timeoutNanos}. */
    static boolean awaitEnd(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (!ended) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    /** Forgets the ended job's events, for the next run in the same JVM ({@code --worker true}). */
    static synchronized void reset() {
        COUNT.set(0);
        firstArrivalNanos = 0;
        lastArrivalNanos = 0;
        measureFromMillis = Long.MAX_VALUE;
        commitMillis = null;
        latencies = new long[1024];
        latencyCount = 0;
        jobFailure = null;
        eventLength = 0;
        ended = false;
    }

    static Throwable jobFailure() {
        return jobFailure;
    }

    static long count() {
        return COUNT.get();
    }

    /** The characters (String events) or bytes (byte[] events) of all the events counted so far. */
    static long eventLength() {
        return eventLength;
    }

    static long firstArrivalNanos() {
        return firstArrivalNanos;
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
