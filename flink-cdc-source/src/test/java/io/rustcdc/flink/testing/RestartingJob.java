package io.rustcdc.flink.testing;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.testing.compat.JobFailures;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.CloseableIterator;

/**
 * A source job on the test's MiniCluster under a real restart strategy (fixed delay, {@value
 * #ATTEMPTS} attempts, 200 ms apart; checkpoints every 300 ms), optionally restored from a
 * savepoint: tells whether a failure was restarted or failed the job once, and hands the records
 * to the test.
 */
public final class RestartingJob implements AutoCloseable {
    public static final int ATTEMPTS = 8;

    public final BlockingQueue<String> records = new LinkedBlockingQueue<>();
    private final MiniCluster cluster;
    private final CloseableIterator<String> results;
    private final Thread collector;
    private final JobClient client;

    private RestartingJob(MiniCluster cluster, CdcSource<String, ?, ?> source, String savepoint,
            Function<DataStream<String>, DataStream<String>> between, boolean collect) throws Exception {
        this(cluster, source, savepoint, between, collect, true);
    }

    private RestartingJob(MiniCluster cluster, CdcSource<String, ?, ?> source, String savepoint,
            Function<DataStream<String>, DataStream<String>> between, boolean collect, boolean restarts)
            throws Exception {
        this.cluster = cluster;
        Configuration conf = new Configuration();
        if (restarts) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, ATTEMPTS);
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        } else {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        env.enableCheckpointing(300);
        DataStream<String> stream = env.fromSource(source, WatermarkStrategy.noWatermarks(), "cdc").uid("cdc-source");
        if (collect) {
            results = FreshCollect.collectAsync(between.apply(stream));
        } else {
            results = null;
            between.apply(stream).sinkTo(new DiscardingSink<>());
        }
        client = env.executeAsync();
        collector = new Thread(() -> {
            if (results == null) {
                return;
            }
            try {
                results.forEachRemaining(records::add);
            } catch (RuntimeException closed) {
                // the test closed the results, or the job failed: its result says which
            }
        }, "restarting-job-collect");
        collector.setDaemon(true);
        collector.start();
    }

    public static RestartingJob start(MiniCluster cluster, CdcSource<String, ?, ?> source) throws Exception {
        return new RestartingJob(cluster, source, null, s -> s, true);
    }

    /**
     * Without Flink's collect sink, for a job expected to fail while it starts: a collect sink closed
     * before it opened throws in its task's exception handler, which takes the TaskManager down.
     */
    public static RestartingJob startDiscarding(MiniCluster cluster, CdcSource<String, ?, ?> source)
            throws Exception {
        return new RestartingJob(cluster, source, null, s -> s, false);
    }

    /** With Flink's restarts off: the first failure fails the job (the source's own retries still apply). */
    public static RestartingJob startWithoutRestarts(MiniCluster cluster, CdcSource<String, ?, ?> source)
            throws Exception {
        return new RestartingJob(cluster, source, null, s -> s, true, false);
    }

    public static RestartingJob restore(MiniCluster cluster, CdcSource<String, ?, ?> source, String savepoint)
            throws Exception {
        return new RestartingJob(cluster, source, savepoint, s -> s, true);
    }

    /** With {@code between} applied to the source's records before they are collected (a slow sink, say). */
    public static RestartingJob start(MiniCluster cluster, CdcSource<String, ?, ?> source,
            Function<DataStream<String>, DataStream<String>> between) throws Exception {
        return new RestartingJob(cluster, source, null, between, true);
    }

    /**
     * Waits until the job failed and returns the CdcException that failed it; throws when the job
     * is still running after {@code timeout} or ended otherwise.
     */
    public CdcException awaitFailure(Duration timeout) throws Exception {
        JobStatus status = awaitTerminal(timeout);
        if (status != JobStatus.FAILED) {
            throw new AssertionError("The job ended " + status + ", not FAILED");
        }
        Throwable failure;
        try {
            client.getJobExecutionResult().get(30, TimeUnit.SECONDS);
            throw new AssertionError("The job has a result, but its status is FAILED");
        } catch (java.util.concurrent.ExecutionException e) {
            failure = e;
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof CdcException) {
                return (CdcException) t;
            }
        }
        throw new AssertionError("The job failed, but not with a CdcException", failure);
    }

    private JobStatus awaitTerminal(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            JobStatus status = client.getJobStatus().get(10, TimeUnit.SECONDS);
            if (status.isGloballyTerminalState()) {
                return status;
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("The job is still " + status + " after " + timeout + "; failures so far: "
                        + failures());
            }
            Thread.sleep(100);
        }
    }

    /**
     * How many failures Flink has handled so far (each either restarted the job or ended it): its
     * exception history, whose every entry is one failure, task or global.
     */
    public int failures() throws Exception {
        return JobFailures.count(cluster, client.getJobID());
    }

    public org.apache.flink.api.common.JobID jobId() {
        return client.getJobID();
    }

    /** Whether the job is running: created, running or restarting, not ended. */
    public JobStatus status() throws Exception {
        return client.getJobStatus().get(10, TimeUnit.SECONDS);
    }

    /** Stops the job with a savepoint in {@code directory} once every record before it is collected. */
    public String stopWithSavepoint(java.nio.file.Path directory) throws Exception {
        String path = client.stopWithSavepoint(false, directory.toUri().toString(),
                org.apache.flink.core.execution.SavepointFormatType.CANONICAL).get(60, TimeUnit.SECONDS);
        client.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        collector.join(60_000);
        if (collector.isAlive()) {
            throw new AssertionError("The stopped job's last records were not collected within a minute");
        }
        return path;
    }

    @Override
    public void close() throws Exception {
        if (results != null) {
            results.close();
        }
        JobStatus status = client.getJobStatus().get(10, TimeUnit.SECONDS);
        if (!status.isGloballyTerminalState()) {
            client.cancel().get(30, TimeUnit.SECONDS);
        }
    }
}
