package io.rustcdc.flink.postgres;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.testing.consistency.ConsistencySuite;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The adversarial consistency suite on PostgreSQL with every suite table hash-partitioned by its
 * first key column: captured through the roots, key updates moving rows between partitions.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(1800)
class PostgresPartitionedConsistencyITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).withHaLeadershipControl().build());

    @Test
    void randomizedWorkloadsAndFaultsOnPartitionedTablesKeepTheChangelogExact(PostgresDatabase db,
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        ConsistencySuite.run(cluster, new PostgresConsistencyITCase.Target(db, true), 1, true);
    }
}
