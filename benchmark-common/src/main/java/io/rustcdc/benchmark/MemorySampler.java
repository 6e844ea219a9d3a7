package io.rustcdc.benchmark;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/** Samples the heap in use every 20 ms and keeps the peak; reads the process's peak RSS from the kernel. */
final class MemorySampler implements AutoCloseable {
    private final Thread thread;
    private volatile boolean stop;
    private volatile long peakHeap;

    MemorySampler() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        thread = new Thread(() -> {
            while (!stop) {
                peakHeap = Math.max(peakHeap, memory.getHeapMemoryUsage().getUsed());
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "memory-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    long peakHeapBytes() {
        return peakHeap;
    }

    /** VmHWM of /proc/self/status: the most resident memory this process ever had. */
    static long peakRssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return -1;
    }

    @Override
    public void close() {
        stop = true;
        thread.interrupt();
    }
}
