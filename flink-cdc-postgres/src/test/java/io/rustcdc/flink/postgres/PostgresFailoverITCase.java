package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
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
@ExtendWith(PostgresExtension.class)
@Timeout(300)
class PostgresFailoverITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).withHaLeadershipControl().build());

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
        JsonChangelog changelog = FailoverDrill.run(cluster, source,
                () -> Writers.start(db, 2, 15_000, 20_000), db::admin);
        assertThat(changelog.violations()).isEmpty();
    }

    /** See {@link HandoffFailureDrill}: chunks read again after the stream split was made, before a checkpoint held it. */
    @Test
    void aFailureRightAfterTheStreamSplitIsMadeKeepsTheChangelogExact(PostgresDatabase db,
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        Writers.createTables(db, 3_000);
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, "handoff_failure")))
                .includeTables("public.t1", "public.t2")
                .chunkSize(100)
                .deserializer(new HandoffFailureDrill.Json())
                .build();
        JsonChangelog changelog = HandoffFailureDrill.run(cluster, source, 3_000,
                seed -> Writers.start(db, 2, 90_000, 3_000, 20, seed), db::admin, "rustcdc.handoff.seed");
        assertThat(changelog.violations()).isEmpty();
    }
}
