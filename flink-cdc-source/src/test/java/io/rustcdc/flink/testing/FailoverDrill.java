package io.rustcdc.flink.testing;

import io.rustcdc.flink.source.CdcSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.highavailability.nonha.embedded.HaLeadershipControl;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * A source over {@link TwoTables} at parallelism 4 while writers change them: the TaskManager is lost
 * during the snapshot and again during the stream, then the JobManager fails over; the changelog
 * must still converge on the tables' rows. The cluster needs HA leadership control.
 */
public final class FailoverDrill {
    private static final Duration LIMIT = Duration.ofSeconds(150);

    private FailoverDrill() {}

    /** Runs the drill and returns the changelog the job delivered, to be checked for violations. */
    public static JsonChangelog run(MiniCluster cluster, CdcSource<String, ?, ?> source,
            Callable<ConcurrentWriters> writers, Callable<Connection> database) throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 30); // a restart across the lost TM fails
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(4);
        env.enableCheckpointing(300);
        CloseableIterator<String> results = env.fromSource(source, WatermarkStrategy.noWatermarks(), "source").collectAsync();
        JobClient job = env.executeAsync("failover");
        BlockingQueue<String> records = new LinkedBlockingQueue<>();
        Thread collector = new Thread(() -> results.forEachRemaining(records::add), "collect");
        collector.start();
        JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
        try (ConcurrentWriters running = writers.call()) {
            changelog.drainUntil(records, () -> changelog.ops().getOrDefault("read", 0) >= 3_000, LIMIT);
            restartTaskManager(cluster); // during the snapshot
            changelog.drainUntil(records, () -> changelog.ops().getOrDefault("update", 0) >= 50, LIMIT);
            restartTaskManager(cluster); // during the stream
            changelog.drainUntil(records, () -> changelog.ops().getOrDefault("update", 0) >= 150, LIMIT);
            changelog.drainUntil(records, () -> FreshCollect.tasksRunning(cluster, job.getJobID()), LIMIT); // FLINK-39330
            HaLeadershipControl leadership = cluster.getHaLeadershipControl().orElseThrow();
            leadership.revokeJobMasterLeadership(job.getJobID()).get(30, TimeUnit.SECONDS);
            leadership.grantJobMasterLeadership(job.getJobID());
            running.awaitEnd();
            java.util.Map<String, java.util.Map<String, String>> expected;
            try (Connection c = database.call()) {
                expected = TwoTables.rows(c);
            }
            changelog.drainUntil(records, () -> TwoTables.reached(changelog, expected), LIMIT);
        } finally {
            results.close();
            job.cancel();
        }
        return changelog;
    }

    private static void restartTaskManager(MiniCluster cluster) throws Exception {
        TaskManagerLoss.killAndReplace(cluster, Duration.ofSeconds(60));
    }
}
