package io.rustcdc.flink.testing;

import io.rustcdc.flink.source.CdcSource;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.annotation.Nullable;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.highavailability.nonha.embedded.HaLeadershipControl;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * A source job on the test's MiniCluster (parallelism 2, checkpoints every 300 ms), optionally
 * restored from a savepoint, whose records reach {@link #records}; stopped with a savepoint to be
 * restored as another job, possibly with another source configuration (the source keeps its uid); or
 * its JobManager failed over (once all its tasks run).
 */
public final class RestorableJob implements AutoCloseable {
    public final BlockingQueue<String> records = new LinkedBlockingQueue<>();
    private final CloseableIterator<String> results;
    private final Thread collector;
    private JobClient client;

    private RestorableJob(CdcSource<String, ?, ?> source, @Nullable String savepoint) throws Exception {
        Configuration conf = new Configuration();
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            // the collect sink's operator differs between the jobs (FreshCollect)
            conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(300);
        results = FreshCollect.collectAsync(env.fromSource(source, WatermarkStrategy.noWatermarks(), "cdc").uid("cdc-source"));
        client = env.executeAsync();
        collector = new Thread(() -> {
            try {
                results.forEachRemaining(records::add);
            } catch (RuntimeException closed) {
                // the test closed the results, or the job failed: its result says which
            }
        }, "restorable-job-collect");
        collector.setDaemon(true);
        collector.start();
    }

    public static RestorableJob start(CdcSource<String, ?, ?> source, @Nullable String savepoint) throws Exception {
        return new RestorableJob(source, savepoint);
    }

    /**
     * Stops the job with a savepoint in {@code directory}; returns once every record emitted before
     * it is in {@link #records}.
     */
    public String stopWithSavepoint(Path directory) throws Exception {
        String path = client.stopWithSavepoint(false, directory.toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        client.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        client = null;
        collector.join(60_000);
        if (collector.isAlive()) {
            throw new AssertionError("The stopped job's last records were not collected within a minute");
        }
        return path;
    }

    /**
     * Fails the JobManager over (its leadership revoked, then granted again): the job is restored from its
     * latest completed checkpoint. {@code whileNoLeader} runs while no JobManager leads the job. The
     * cluster needs HA leadership control ({@code withHaLeadershipControl()}).
     */
    public void failOverJobManager(MiniCluster cluster, Callable<?> whileNoLeader) throws Exception {
        HaLeadershipControl leadership = cluster.getHaLeadershipControl().orElseThrow();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!FreshCollect.tasksRunning(cluster, client.getJobID())) { // FLINK-39330: see tasksRunning
            if (System.nanoTime() > deadline || client.getJobExecutionResult().isDone()) {
                throw new AssertionError("The job's tasks were not all running within 90 s, or the job ended");
            }
            Thread.sleep(50);
        }
        while (true) {
            try {
                leadership.revokeJobMasterLeadership(client.getJobID()).get(30, TimeUnit.SECONDS);
                break;
            } catch (ExecutionException notYet) {
                // a leader granted a moment ago may not have taken the job yet ("Still waiting for the leadership")
                if (System.nanoTime() > deadline || client.getJobExecutionResult().isDone()) {
                    throw new AssertionError("The JobManager's leadership could not be revoked", notYet);
                }
                Thread.sleep(300);
            }
        }
        whileNoLeader.call();
        leadership.grantJobMasterLeadership(client.getJobID());
    }

    @Override
    public void close() throws Exception {
        results.close();
        if (client != null) {
            client.cancel().get(30, TimeUnit.SECONDS);
        }
    }
}
