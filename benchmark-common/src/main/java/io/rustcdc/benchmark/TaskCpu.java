package io.rustcdc.benchmark;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The CPU time of the job's task threads, where the source emits and the sink takes each event: what the
 * per-event work costs, read every 100 ms (a task thread of a bounded job is gone by the end) and kept per
 * thread. A shared machine's load stretches the wall time and the idle polling of other threads, much less
 * this. Flink names a task thread after its operator chain and subtask: {@code Source: rustcdc -> Sink: Writer
 * (1/1)#0}; on the SQL path, a sink task of its own is {@code ConstraintEnforcer[2] -> counted[2]: Writer
 * (1/1)#0} on Flink 2.3. Not counted: the threads named after a task's, {@code Source Data Fetcher for ...}
 * (the split reader, as before), {@code OutputFlusher for ...}, {@code Time Trigger for ...}.
 */
final class TaskCpu implements AutoCloseable {
    private static final Pattern TASK = Pattern.compile(".+ \\(\\d+/\\d+\\)#\\d+");
    private static final Pattern HELPER = Pattern.compile("[\\w ]+ for ");
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final Map<Long, Long> cpuByThread = new HashMap<>();
    private final Thread thread;
    private volatile boolean stop;

    TaskCpu() {
        thread = new Thread(() -> {
            while (!stop) {
                sample();
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "task-cpu-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private synchronized void sample() {
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && isTaskThread(info.getThreadName())) {
                long cpu = threads.getThreadCpuTime(info.getThreadId());
                if (cpu > 0) {
                    cpuByThread.merge(info.getThreadId(), cpu, Math::max);
                }
            }
        }
    }

    /** A task's own thread: its chain and subtask, {@code ... (1/2)#0}; not a helper named {@code ... for <task>}. */
    static boolean isTaskThread(String name) {
        return TASK.matcher(name).matches() && !HELPER.matcher(name).lookingAt();
    }

    /** Seconds of CPU the task threads used so far. */
    synchronized double seconds() {
        sample();
        return cpuByThread.values().stream().mapToLong(Long::longValue).sum() / 1e9;
    }

    @Override
    public void close() {
        stop = true;
        thread.interrupt();
    }
}
