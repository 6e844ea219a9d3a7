package io.rustcdc.benchmark;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * The CPU time of the job's task threads (Flink names them {@code Source: ...} and {@code Sink: ...}),
 * where the source emits and the sink takes each event: what the per-event work costs, read every
 * 100 ms (a task thread of a bounded job is gone by the end) and kept per thread. A shared machine's
 * load stretches the wall time and the idle polling of other threads, much less this.
 */
final class TaskCpu implements AutoCloseable {
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
            if (info != null && (info.getThreadName().startsWith("Source: ") || info.getThreadName().startsWith("Sink: "))) {
                long cpu = threads.getThreadCpuTime(info.getThreadId());
                if (cpu > 0) {
                    cpuByThread.merge(info.getThreadId(), cpu, Math::max);
                }
            }
        }
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
