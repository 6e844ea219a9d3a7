package io.rustcdc.benchmark;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * One measured run of one side, in a JVM of its own (so that its peak memory is its own). The side
 * starts its Flink job, whose sink calls {@link Measurement#arrived}; this class waits for the
 * events, writes the result as one JSON object to {@code --result} and exits.
 *
 * <p>Phases: {@code snapshot} and {@code drain} wait for {@code --events} events and time them
 * from the job's submission; {@code latency} writes rows at {@code --rate} rows/s for {@code
 * --seconds} once the job delivers, and measures commit-to-sink delays.
 *
 * <p>With {@code --worker true} (a quick run's, where the JVM's start is most of a run), the JVM runs this run and
 * then each run whose arguments come on its standard input, one line each, tab-separated, until the input ends:
 * each run a job of its own, in turn, on the JVM's one MiniCluster ({@code io.rustcdc.benchmark.cluster.WorkerCluster}),
 * with a JFR recording of its own ({@code --recording}), its result written whole once the job has ended.
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
            BenchmarkArgs args = new BenchmarkArgs(rawArgs);
            if (!args.has("worker") || !"true".equals(args.get("worker"))) {
                measure(args, job, commitMillis, false);
                System.exit(0);
            }
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            measure(args, job, commitMillis, true);
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                measure(new BenchmarkArgs(line.split("\t")), job, commitMillis, true);
            }
            System.exit(0);
        } catch (Throwable e) {
            // the job's threads would keep the JVM alive: a failed run ends here, loudly
            e.printStackTrace();
            System.exit(1);
        }
    }

    /** One run; {@code worker}: in a JVM that runs more after it ({@code --worker true}). */
    private static void measure(BenchmarkArgs args, Job job, ToLongFunction<String> commitMillis, boolean worker)
            throws Exception {
        String phase = args.get("phase");
        String result;
        Recording recording = worker ? new Recording(Configuration.getConfiguration("profile")) : null;
        if (recording != null) {
            recording.start();
        }
        try (MemorySampler memory = new MemorySampler(); ThreadCpu threadCpu = new ThreadCpu(worker)) {
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
        Path resultFile = Path.of(args.get("result"));
        if (!worker) {
            Files.writeString(resultFile, result + "\n", StandardCharsets.UTF_8);
            return;
        }
        // the next run's counts start from nothing: this job's tasks are gone first
        if (!Measurement.awaitEnd(TimeUnit.MINUTES.toNanos(1))) {
            throw new IllegalStateException("The job did not end within a minute of its cancelling");
        }
        Measurement.reset();
        recording.stop();
        recording.dump(Path.of(args.get("recording")));
        recording.close();
        Path written = Path.of(resultFile + ".tmp");
        Files.writeString(written, result + "\n", StandardCharsets.UTF_8);
        Files.move(written, resultFile, StandardCopyOption.ATOMIC_MOVE);
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
