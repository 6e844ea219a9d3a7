package io.rustcdc.benchmark;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * One measured run of one side, in a JVM of its own (so that its peak memory is its own). The side
 * starts its Flink job, whose sink calls {@link Measurement#arrived}; this class waits for the
 * events, writes the result as one JSON object to {@code --result} and exits.
 *
 * <p>Phases: {@code snapshot} and {@code drain} wait for {@code --events} events and time them
 * from the job's submission; {@code latency} writes rows at {@code --rate} rows/s for {@code
 * --seconds} once the job delivers, and measures commit-to-sink delays.
 */
public final class BenchmarkRun {
    /** Starts the side's job; closing the handle cancels it. */
    public interface Job {
        AutoCloseable start(BenchmarkArgs args) throws Exception;
    }

    private BenchmarkRun() {}

    /** @param commitMillis the commit time, in epoch milliseconds, of an event as the side renders it */
    public static void main(String[] rawArgs, Job job, ToLongFunction<String> commitMillis) {
        try {
            measure(rawArgs, job, commitMillis);
        } catch (Throwable e) {
            // the job's threads would keep the JVM alive: a failed run ends here, loudly
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void measure(String[] rawArgs, Job job, ToLongFunction<String> commitMillis) throws Exception {
        BenchmarkArgs args = new BenchmarkArgs(rawArgs);
        String phase = args.get("phase");
        String result;
        try (MemorySampler memory = new MemorySampler(); ThreadCpu threadCpu = new ThreadCpu()) {
            long start = System.nanoTime();
            long cpuStart = processCpuNanos();
            AutoCloseable running = job.start(args);
            String measured = "latency".equals(phase) ? latency(args, commitMillis)
                    : throughput(args, start, cpuStart, threadCpu);
            result = String.format(Locale.ROOT, "{\"phase\":\"%s\",\"parallelism\":%d,%s,\"peak_heap_bytes\":%d,"
                    + "\"peak_rss_bytes\":%d}", phase, args.getInt("parallelism"), measured, memory.peakHeapBytes(),
                    MemorySampler.peakRssBytes());
            try {
                running.close();
            } catch (Exception e) {
                // a bounded job (snapshot) has ended by itself
            }
        }
        Files.writeString(Path.of(args.get("result")), result + "\n", StandardCharsets.UTF_8);
        System.exit(0);
    }

    /**
     * Events, seconds and events/s from the job's submission to the last event, and the seconds to the first;
     * the CPU time this JVM used meanwhile (all its threads, the job's start included) and that of its task,
     * reader, GC and JIT threads ({@link ThreadCpu}), which a shared machine's load distorts far less than the
     * wall time.
     */
    private static String throughput(BenchmarkArgs args, long startNanos, long cpuStartNanos, ThreadCpu threadCpu)
            throws InterruptedException {
        long events = args.getLong("events");
        await(() -> Measurement.count() >= events, TimeUnit.MINUTES.toNanos(30), "events: " + events);
        double cpuSeconds = (processCpuNanos() - cpuStartNanos) / 1e9;
        StringBuilder byKind = new StringBuilder();
        for (ThreadCpu.Kind kind : ThreadCpu.Kind.values()) {
            byKind.append(String.format(Locale.ROOT, ",\"%s_cpu_seconds\":%.3f", kind.name().toLowerCase(Locale.ROOT),
                    threadCpu.seconds(kind)));
        }
        Thread.sleep(200); // an event too many would show here
        double seconds = (Measurement.lastArrivalNanos() - startNanos) / 1e9;
        return String.format(Locale.ROOT, "\"events\":%d,\"seconds\":%.3f,\"events_per_second\":%.0f,"
                + "\"first_event_seconds\":%.3f,\"mean_event_length\":%.1f,\"cpu_seconds\":%.3f%s", Measurement.count(),
                seconds, Measurement.count() / seconds, (Measurement.firstArrivalNanos() - startNanos) / 1e9,
                (double) Measurement.eventLength() / Measurement.count(), cpuSeconds, byKind);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static String latency(BenchmarkArgs args, ToLongFunction<String> commitMillis) throws Exception {
        long firstId = args.getLong("first-id");
        try (RowWriter writer = new RowWriter(args, firstId)) {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (Measurement.count() == 0) { // until the job delivers
                if (Measurement.jobFailure() != null) {
                    throw new IllegalStateException("The job failed", Measurement.jobFailure());
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("The job delivered nothing within 3 minutes");
                }
                writer.transaction(1);
                Thread.sleep(100);
            }
            Thread.sleep(1_000);
            Measurement.measureLatency(System.currentTimeMillis(), commitMillis);
            long written = writer.atRate(args.getInt("rate"), args.getLong("seconds"));
            await(() -> Measurement.latencyCount() >= written, TimeUnit.MINUTES.toNanos(2),
                    "latency rows: " + written);
            long[] p = Measurement.latencyPercentiles();
            return String.format(Locale.ROOT, "\"events\":%d,\"rate\":%d,\"latency_ms\":{\"p50\":%d,\"p99\":%d,\"max\":%d}",
                    written, args.getInt("rate"), p[0], p[1], p[2]);
        }
    }

    private static void await(java.util.function.BooleanSupplier done, long timeoutNanos, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (!done.getAsBoolean()) {
            if (Measurement.jobFailure() != null) {
                throw new IllegalStateException("The job failed", Measurement.jobFailure());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Timed out waiting for " + what + "; arrived " + Measurement.count());
            }
            Thread.sleep(5);
        }
    }
}
