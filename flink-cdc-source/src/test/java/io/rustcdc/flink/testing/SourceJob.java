package io.rustcdc.flink.testing;

import io.rustcdc.flink.source.CdcSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs a source job (checkpoints every 300 ms) on the test's MiniCluster and hands its records to
 * the test thread, with deadlines.
 */
public final class SourceJob implements AutoCloseable {
    public final BlockingQueue<String> records = new LinkedBlockingQueue<>();
    private final CloseableIterator<String> iterator;
    private final Thread thread;
    private volatile Throwable failure;

    public SourceJob(CdcSource<String, ?, ?> source, int parallelism) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.enableCheckpointing(300);
        iterator = env.fromSource(source, WatermarkStrategy.noWatermarks(), "source").executeAndCollect();
        thread = new Thread(() -> {
            try {
                while (iterator.hasNext()) {
                    records.add(iterator.next());
                }
            } catch (Throwable t) {
                failure = t;
            }
        }, "collect");
        thread.start();
    }

    public interface Condition {
        boolean holds();
    }

    public void applyUntil(JsonChangelog changelog, Condition done, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> batch = new ArrayList<>();
        while (!done.holds()) {
            if (failure != null) {
                throw new AssertionError("The job failed", failure);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("The changelog did not converge within " + timeout + "; violations: "
                        + changelog.violations() + ", ops: " + changelog.ops());
            }
            String first = records.poll(100, TimeUnit.MILLISECONDS);
            if (first != null) {
                changelog.apply(first);
                batch.clear();
                records.drainTo(batch);
                batch.forEach(changelog::apply);
            }
        }
    }

    /** Hands {@code apply} the records that arrive within {@code millis}; fails when the job failed. */
    public void drain(Consumer<String> apply, long millis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
            if (failure != null) {
                throw new AssertionError("The job failed", failure);
            }
            String r = records.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(20)), TimeUnit.NANOSECONDS);
            if (r != null) {
                apply.accept(r);
            }
        }
    }

    @Override
    public void close() throws Exception {
        iterator.close();
        thread.join(30_000);
    }
}
