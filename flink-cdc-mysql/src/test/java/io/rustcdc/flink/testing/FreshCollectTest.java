package io.rustcdc.flink.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.highavailability.nonha.embedded.HaLeadershipControl;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link FreshCollect#tasksRunning}, the guard of every test that fails a JobManager over (FLINK-39330): no database
 * needed, so it lives with the MySQL module's tests, which have Flink's test utilities (the framework's do not).
 */
class FreshCollectTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).withHaLeadershipControl().build());

    /**
     * A job whose JobMaster lost its leadership (as one granted it again, until it restored the job) answers with a
     * graph in state INITIALIZING and no tasks at all: that is not every task running (it counted as such until
     * 2026-12-06, so a second failover could come while the first one's tasks were being deployed).
     */
    @Test
    void noTaskRunsWhileTheJobManagerIsBeingStarted(@InjectMiniCluster MiniCluster cluster) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        CloseableIterator<Long> records = FreshCollect.collectAsync(env.fromSequence(0, Long.MAX_VALUE).map(n -> {
            Thread.sleep(1);
            return n;
        }));
        JobClient client = env.executeAsync("fresh-collect");
        JobID job = client.getJobID();
        Thread drain = new Thread(() -> {
            try {
                records.forEachRemaining(n -> { });
            } catch (RuntimeException closed) {
                // the job is cancelled below
            }
        });
        drain.setDaemon(true);
        drain.start();
        try {
            Poll.until("every task of the job to run", Duration.ofSeconds(60), () -> FreshCollect.tasksRunning(cluster, job));
            HaLeadershipControl leadership = cluster.getHaLeadershipControl().orElseThrow();
            leadership.revokeJobMasterLeadership(job).get(30, TimeUnit.SECONDS);
            boolean leaderless = FreshCollect.tasksRunning(cluster, job);
            leadership.grantJobMasterLeadership(job); // first: without a leader the job could not be cancelled
            assertThat(leaderless).as("tasks running while no JobMaster leads the job").isFalse();
            Poll.until("every task of the restored job to run", Duration.ofSeconds(60),
                    () -> FreshCollect.tasksRunning(cluster, job));
        } finally {
            records.close();
            client.cancel().get(30, TimeUnit.SECONDS);
        }
    }
}
