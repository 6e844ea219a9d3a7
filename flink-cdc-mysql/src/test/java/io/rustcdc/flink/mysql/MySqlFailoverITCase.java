package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.FailoverDrill;
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
 * writers change the tables: the changelog is still exact.
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
}
