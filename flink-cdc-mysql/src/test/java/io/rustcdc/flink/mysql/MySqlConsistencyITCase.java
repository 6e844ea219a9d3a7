package io.rustcdc.flink.mysql;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.SinkGuarantee;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.consistency.ConsistencySuite;
import io.rustcdc.flink.testing.consistency.ConsistencyTarget;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The adversarial consistency suite on the MySQL-protocol server: randomized writers and faults, the changelog replayed. */
@ExtendWith(MySqlExtension.class)
@Timeout(1800)
class MySqlConsistencyITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).withHaLeadershipControl().build());

    @Test
    void randomizedWorkloadsAndFaultsKeepTheChangelogExact(MySqlDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        ConsistencySuite.run(cluster, new Target(db), 2, true);
    }

    private static final class Target implements ConsistencyTarget {
        private final MySqlDatabase db;

        Target(MySqlDatabase db) {
            this.db = db;
        }

        @Override
        public String server() {
            return db.queryValue("SELECT VERSION()");
        }

        @Override
        public Connection connect() throws SQLException {
            return db.admin();
        }

        /**
         * By the seed's lowest bit: {@code utf8mb4_bin}, whose order the connector reproduces, or {@code
         * utf8mb4_unicode_ci} (on both flavors), whose changed keys the server places among the chunks.
         */
        @Override
        public String textKeyCollation(long seed) {
            return " CHARACTER SET utf8mb4 COLLATE " + ((seed & 1) == 0 ? "utf8mb4_bin" : "utf8mb4_unicode_ci");
        }

        /**
         * As for PostgreSQL, though InnoDB's row estimate of these small tables stays above their rows (seen 1.6 times
         * after it on MariaDB, 2.8 times on Oracle MySQL): sparse keys may have their chunk ends computed too.
         */
        @Override
        public String analyzeStatement(String table) {
            return "ANALYZE TABLE " + table;
        }

        @Override
        public boolean computesDenseChunkEnds() {
            return true;
        }

        @Override
        public String upsert(String insert, String table, String keyColumns, String assignments) {
            return insert + " ON DUPLICATE KEY UPDATE " + assignments;
        }

        @Override
        public CdcSource<String, ?, ?> source(List<String> tables, int chunkSize, boolean atLeastOnceSinks, String run) {
            return CdcSource.builder()
                    .connector(MySqlConnector.create(MySqlTestConfigs.config(db)))
                    .includeTables(tables.stream().map(t -> db.name() + "." + t).toArray(String[]::new))
                    .chunkSize(chunkSize)
                    .tableDiscoveryInterval(Duration.ofSeconds(1))
                    .sinkGuarantee(atLeastOnceSinks ? SinkGuarantee.AT_LEAST_ONCE : SinkGuarantee.EXACTLY_ONCE)
                    .deserializer(ChangeEventDeserializer.json())
                    .build();
        }
    }
}
