package io.rustcdc.flink.testing.consistency;

import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.testing.FreshCollect;
import io.rustcdc.flink.testing.TaskManagerLoss;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.annotation.Nullable;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.highavailability.nonha.embedded.HaLeadershipControl;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * The run's job on the test's MiniCluster, and the faults done to it: a TaskManager lost, the
 * JobManager's leadership revoked and granted again, a stop with savepoint and a restore as a new
 * job. Every record any of its jobs delivered reaches {@link #records}, in order.
 */
final class SuiteJob implements AutoCloseable {
    private static final Duration FAULT_LIMIT = Duration.ofSeconds(90);

    final BlockingQueue<String> records;
    private final MiniCluster cluster;
    private final CdcSource<String, ?, ?> source;
    private final Workload workload;
    private final String run;
    private JobClient client;
    @Nullable private CloseableIterator<String> results;
    @Nullable private Thread collector;

    SuiteJob(MiniCluster cluster, CdcSource<String, ?, ?> source, Workload workload, String run) throws Exception {
        this.cluster = cluster;
        this.source = source;
        this.workload = workload;
        this.run = run;
        this.records = workload.sink == Workload.Sink.AT_LEAST_ONCE ? PlainSink.records(run) : new LinkedBlockingQueue<>();
        start(null);
    }

    private void start(@Nullable String savepoint) throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        // while a lost TaskManager shuts down, a restart may be deployed across it and fail at once
        // ("Local execution does not support shuffle connection"): the attempts span 15 s, not 4
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 30);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true); // the collect sink is new (FreshCollect)
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(workload.parallelism);
        env.enableCheckpointing(workload.checkpointMillis);
        DataStream<String> stream = env.fromSource(source, WatermarkStrategy.noWatermarks(), "cdc").uid("cdc-source");
        if (workload.sink == Workload.Sink.AT_LEAST_ONCE) {
            stream.sinkTo(new PlainSink(run)).setParallelism(1).uid("plain-sink");
            client = env.executeAsync("consistency " + run);
            return;
        }
        CloseableIterator<String> it = FreshCollect.collectAsync(stream);
        client = env.executeAsync("consistency " + run);
        results = it;
        collector = new Thread(() -> {
            try {
                it.forEachRemaining(records::add);
            } catch (RuntimeException closed) {
                // closed by the test, or the job ended: its result tells which
            }
        }, "consistency-collect");
        collector.setDaemon(true);
        collector.start();
    }

    /**
     * Whether the JobManager may be failed over now: when the job collects through Flink's collect sink, only once
     * every task of its current attempt runs ({@link FreshCollect#tasksRunning}).
     */
    boolean mayFailOverJobManager() throws Exception {
        if (results == null) {
            return true;
        }
        checkRunning();
        return FreshCollect.tasksRunning(cluster, client.getJobID());
    }

    /** Fails when the job has ended, which none of the suite's jobs does by itself. */
    void checkRunning() throws Exception {
        if (client.getJobExecutionResult().isDone()) {
            try {
                client.getJobExecutionResult().get();
            } catch (ExecutionException failed) {
                throw new IllegalStateException("The job failed" + taskFailures(), failed);
            }
            throw new AssertionError("The job ended by itself");
        }
    }

    /**
     * The failures of the job's tasks as Flink recorded them, each task's last: the job's own failure need not name
     * them (a stop with savepoint that fails says only that a task did not finish).
     */
    private String taskFailures() {
        StringBuilder out = new StringBuilder();
        try {
            for (AccessExecutionVertex task : cluster.getExecutionGraph(client.getJobID()).get(10, TimeUnit.SECONDS)
                    .getAllExecutionVertices()) {
                task.getFailureInfo().ifPresent(e -> out.append("\n  task ").append(task.getTaskNameWithSubtaskIndex())
                        .append(" failed: ").append(e.getExceptionAsString()));
            }
        } catch (Exception e) {
            out.append("\n  (its tasks' failures could not be read: ").append(e).append(')');
        }
        return out.toString();
    }

    void inject(Workload.Fault fault) throws Exception {
        switch (fault) {
            case TASK_MANAGER_LOSS:
                long start = System.nanoTime();
                // Flink's own bound on cancelling a task (task.cancellation.timeout) is 180 s
                TaskManagerLoss.killAndReplace(cluster, Duration.ofMinutes(3));
                long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
                if (seconds >= 30) {
                    System.out.println("  the TaskManager took " + seconds + " s to terminate and be replaced");
                }
                break;
            case JOB_MANAGER_FAILOVER:
                failOverJobManager();
                break;
            default:
                restartFromSavepoint();
                break;
        }
    }

    private void failOverJobManager() throws Exception {
        HaLeadershipControl leadership = cluster.getHaLeadershipControl().orElseThrow();
        long deadline = System.nanoTime() + FAULT_LIMIT.toNanos();
        while (true) {
            try {
                leadership.revokeJobMasterLeadership(client.getJobID()).get(30, TimeUnit.SECONDS);
                break;
            } catch (ExecutionException notYet) {
                // a job just restored from a savepoint may not have its leader yet ("Still waiting for the leadership")
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("The JobManager's leadership could not be revoked within " + FAULT_LIMIT,
                            notYet);
                }
                checkRunning();
                Thread.sleep(300);
            }
        }
        leadership.grantJobMasterLeadership(client.getJobID());
    }

    private void restartFromSavepoint() throws Exception {
        String directory = Files.createTempDirectory("consistency-savepoint").toUri().toString();
        long deadline = System.nanoTime() + FAULT_LIMIT.toNanos();
        String savepoint = null;
        while (savepoint == null) {
            try {
                savepoint = client.stopWithSavepoint(false, directory, SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);
            } catch (Exception notYet) {
                // the job is restarting, or a task is not running yet: try again
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("No savepoint could be taken within " + FAULT_LIMIT, notYet);
                }
                checkRunning();
                Thread.sleep(300);
            }
        }
        client.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        if (collector != null) {
            collector.join(60_000);
            if (collector.isAlive()) {
                throw new AssertionError("The stopped job's last records were not collected within a minute");
            }
        }
        start(savepoint);
    }

    @Override
    public void close() throws Exception {
        if (results != null) {
            results.close();
        }
        try {
            client.cancel().get(30, TimeUnit.SECONDS);
        } catch (Exception ended) {
            // already ended
        }
        PlainSink.forget(run);
    }
}
