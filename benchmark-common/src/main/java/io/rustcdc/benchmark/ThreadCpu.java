package io.rustcdc.benchmark;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The CPU time of this JVM's threads by what they do, read every 100 ms (a task thread of a bounded job is
 * gone by the end) and kept per thread: where the per-event work goes. A shared machine's load stretches the
 * wall time and the idle polling of other threads, much less this.
 *
 * <ul>
 *   <li>{@link Kind#TASK}: the job's task threads, where the source emits and the sink takes each event. Flink
 *       names one after its operator chain and subtask: {@code Source: rustcdc -> Sink: Writer (1/1)#0}; on
 *       the SQL path, a sink task of its own is {@code ConstraintEnforcer[2] -> counted[2]: Writer (1/1)#0} on
 *       Flink 2.3. Not the helpers named after a task's, {@code Source Data Fetcher for ...}, {@code
 *       OutputFlusher for ...}, {@code Time Trigger for ...}.</li>
 *   <li>{@link Kind#READER}: the threads that read and decode the database's data: Flink's split fetcher
 *       ({@code Source Data Fetcher for ...}, the peer's) and ours ({@code rustcdc-<connector>-reader-<n>}).</li>
 *   <li>{@link Kind#GC} and {@link Kind#JIT}: the JVM's own threads, which Java's thread API does not show:
 *       read from {@code /proc/self/task} by their names ({@code GC Thread#0}, {@code G1 Conc#0}, ...; {@code C1
 *       CompilerThread0}, {@code C2 CompilerThread0}), in clock ticks (10 ms).</li>
 * </ul>
 * The rest of the process's CPU time (Flink's other threads, the job's start, the JVM's VM thread) is neither.
 */
final class ThreadCpu implements AutoCloseable {
    enum Kind { TASK, READER, GC, JIT }

    private static final Pattern TASK = Pattern.compile(".+ \\(\\d+/\\d+\\)#\\d+");
    private static final Pattern HELPER = Pattern.compile("[\\w ]+ for ");
    private static final Pattern READER = Pattern.compile("Source Data Fetcher for .*|rustcdc-.+-reader-\\d+");
    private static final Pattern GC = Pattern.compile("GC Thread.*|G1 .*");
    private static final Pattern JIT = Pattern.compile("C[12] CompilerThre.*");
    /** Linux's clock ticks per second, which {@code /proc/<pid>/task/<tid>/stat} counts in. */
    private static final long TICK_NANOS = 10_000_000L;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final Map<Kind, Map<Long, Long>> cpuByThread = new EnumMap<>(Kind.class);
    /** The kind of each native thread seen, by its id; null for a thread of no kind here: each name is read once. */
    private final Map<Long, Kind> nativeKinds = new HashMap<>();
    /** Each thread's CPU time when this began, subtracted: empty unless {@code fromNow}. */
    private final Map<Kind, Map<Long, Long>> before = new EnumMap<>(Kind.class);
    private final Thread thread;
    private volatile boolean stop;

    /**
     * @param fromNow whether to count from now alone: in a JVM that ran other runs before ({@code --worker true}),
     *     whose JVM threads (GC, JIT) have used CPU for them; else each thread's CPU from its start
     */
    ThreadCpu(boolean fromNow) {
        for (Kind kind : Kind.values()) {
            cpuByThread.put(kind, new HashMap<>());
            before.put(kind, new HashMap<>());
        }
        if (fromNow) {
            sample();
            cpuByThread.forEach((kind, cpu) -> before.get(kind).putAll(cpu));
        }
        thread = new Thread(() -> {
            while (!stop) {
                sample();
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "thread-cpu-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private synchronized void sample() {
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            Kind kind = info == null ? null : javaKind(info.getThreadName());
            if (kind != null) {
                record(kind, info.getThreadId(), threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                sampleNative(task);
            }
        } catch (IOException e) {
            // not Linux: the JVM's own threads are not told apart
        }
    }

    /** A JVM thread of its own (GC, JIT), which Java's thread API does not list: its CPU time from /proc. */
    private void sampleNative(Path task) {
        try {
            long id = Long.parseLong(task.getFileName().toString());
            if (!nativeKinds.containsKey(id)) {
                String name = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).trim();
                nativeKinds.put(id, GC.matcher(name).matches() ? Kind.GC : JIT.matcher(name).matches() ? Kind.JIT : null);
            }
            Kind kind = nativeKinds.get(id);
            if (kind != null) {
                // after the name in parentheses: state, then 10 numbers, then utime and stime (fields 14, 15)
                String stat = Files.readString(task.resolve("stat"), StandardCharsets.UTF_8);
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                record(kind, -id, ticks * TICK_NANOS);
            }
        } catch (IOException | RuntimeException e) {
            // the thread has ended
        }
    }

    private void record(Kind kind, long id, long cpuNanos) {
        if (cpuNanos > 0) {
            cpuByThread.get(kind).merge(id, cpuNanos, Math::max);
        }
    }

    /** The kind of a thread Java's thread API lists, or null for one of no kind here. */
    static Kind javaKind(String name) {
        if (READER.matcher(name).matches()) {
            return Kind.READER;
        }
        return TASK.matcher(name).matches() && !HELPER.matcher(name).lookingAt() ? Kind.TASK : null;
    }

    /** Seconds of CPU the threads of {@code kind} used so far. */
    synchronized double seconds(Kind kind) {
        sample();
        Map<Long, Long> from = before.get(kind);
        return cpuByThread.get(kind).entrySet().stream()
                .mapToLong(e -> e.getValue() - from.getOrDefault(e.getKey(), 0L)).sum() / 1e9;
    }

    @Override
    public void close() {
        stop = true;
        thread.interrupt();
    }
}
