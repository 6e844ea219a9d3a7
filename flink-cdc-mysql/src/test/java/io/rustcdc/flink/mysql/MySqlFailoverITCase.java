package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.FailoverDrill;
import io.rustcdc.flink.testing.HandoffFailureDrill;
import io.rustcdc.flink.testing.JsonChangelog;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * TaskManager loss during the snapshot and during the stream, and a JobManager failover, while
 * writers change the tables; a reader's failure right after the stream split is made: the changelog
 * is still exact.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(300)
class MySqlFailoverITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).withHaLeadershipControl().build());

    @Test
    void taskManagerAndJobManagerFailuresKeepTheChangelogExact(MySqlDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        MySqlWriters.createTables(db, 20_000);
        CdcSource<String, MySqlPosition, MySqlPosition> source = CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.config(db)))
                .includeTables(db.name() + ".t1", db.name() + ".t2")
                .chunkSize(200)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        JsonChangelog changelog = FailoverDrill.run(cluster, source,
                () -> MySqlWriters.start(db, 2, 15_000, 20_000), db::admin);
        assertThat(changelog.violations()).isEmpty();
    }

    /** See {@link HandoffFailureDrill}: chunks read again after the stream split was made, before a checkpoint held it. */
    @Test
    void aFailureRightAfterTheStreamSplitIsMadeKeepsTheChangelogExact(MySqlDatabase db,
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        MySqlWriters.createTables(db, 3_000);
        CdcSource<String, MySqlPosition, MySqlPosition> source = CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.config(db)))
                .includeTables(db.name() + ".t1", db.name() + ".t2")
                .chunkSize(100)
                .deserializer(new HandoffFailureDrill.Json())
                .build();
        JsonChangelog changelog = HandoffFailureDrill.run(cluster, source, 3_000,
                seed -> MySqlWriters.start(db, 2, 90_000, 3_000, 20, seed), db::admin, "rustcdc.handoff.seed");
        assertThat(changelog.violations()).isEmpty();
    }
}
