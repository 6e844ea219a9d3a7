package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.JsonChangelog;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.highavailability.nonha.embedded.HaLeadershipControl;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * TaskManager loss during the snapshot and during the stream, and a JobManager failover, while
 * writers change the tables: the changelog is still exact.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(300)
class PostgresFailoverITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).withHaLeadershipControl().build());

    private static final Duration LIMIT = Duration.ofSeconds(150);
    private static final Map<String, List<String>> KEYS = Map.of("t1", List.of("id"), "t2", List.of("a", "b"));

    @Test
    void taskManagerAndJobManagerFailuresKeepTheChangelogExact(PostgresDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Writers.createTables(db, 20_000);
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, "failover")))
                .includeTables("public.t1", "public.t2")
                .chunkSize(200)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 10);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(4);
        env.enableCheckpointing(300);
        CloseableIterator<String> results = env.fromSource(source, WatermarkStrategy.noWatermarks(), "pg").collectAsync();
        JobClient job = env.executeAsync("failover");
        BlockingQueue<String> records = new LinkedBlockingQueue<>();
        Thread collector = new Thread(() -> results.forEachRemaining(records::add), "collect");
        collector.start();
        JsonChangelog changelog = new JsonChangelog(KEYS);
        try (ConcurrentWriters writers = Writers.start(db, 2, 15_000, 20_000)) {
            changelog.drainUntil(records, () -> changelog.ops().getOrDefault("read", 0) >= 3_000, LIMIT);
            restartTaskManager(cluster); // during the snapshot
            changelog.drainUntil(records, () -> changelog.ops().getOrDefault("update", 0) >= 50, LIMIT);
            restartTaskManager(cluster); // during the stream
            changelog.drainUntil(records, () -> changelog.ops().getOrDefault("update", 0) >= 150, LIMIT);
            HaLeadershipControl leadership = cluster.getHaLeadershipControl().orElseThrow();
            leadership.revokeJobMasterLeadership(job.getJobID()).get(30, TimeUnit.SECONDS);
            leadership.grantJobMasterLeadership(job.getJobID());
            writers.awaitEnd();
            Map<String, String> t1 = PostgresSourceITCase.t1(db);
            Map<String, String> t2 = PostgresSourceITCase.t2(db);
            changelog.drainUntil(records, () -> changelog.rows("t1").equals(t1) && changelog.rows("t2").equals(t2), LIMIT);
        } finally {
            results.close();
            job.cancel();
        }
        assertThat(changelog.violations()).isEmpty();
    }

    private static void restartTaskManager(MiniCluster cluster) throws Exception {
        cluster.terminateTaskManager(0).get(60, TimeUnit.SECONDS);
        cluster.startTaskManager();
    }
}
