package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.transactions.TransactionBoundariesRun;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code scan.transaction-boundaries = preserve} on PostgreSQL ({@link TransactionBoundariesRun}): each
 * transaction in one checkpoint, one over the bound cut only at multiples of it with its warning; at
 * parallelism 1, and at 3 with the stream on a subtask other than 0; the TaskManager killed twice in each.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(400)
class PostgresTransactionBoundariesITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(3).build());

    @Test
    void atParallelismOneNoTransactionFallsAcrossTwoCheckpoints(PostgresDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        assertThat(TransactionBoundariesRun.run(target(db), "txb_p1", 1, cluster)).isZero();
    }

    @Test
    void withTheStreamOnASubtaskOtherThanTheFirstNoTransactionFallsAcrossTwoCheckpoints(PostgresDatabase db,
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        assertThat(TransactionBoundariesRun.run(target(db), "txb_p3", 3, cluster)).isNotZero();
    }

    private static TransactionBoundariesRun.Target target(PostgresDatabase db) {
        return new TransactionBoundariesRun.Target() {
            @Override
            public CdcConnector<?, ?> connector(String table) {
                return PostgresConnector.create(PostgresTestConfigs.streaming(db, table));
            }

            @Override
            public String include(String table) {
                return "public." + table;
            }

            @Override
            public void createTable(String table) {
                db.execute("CREATE TABLE " + table + " (id bigserial PRIMARY KEY, tx int NOT NULL, n int NOT NULL)",
                        "ALTER TABLE " + table + " OWNER TO " + db.replicationUser(),
                        "CREATE INDEX ON " + table + " (tx)",
                        "INSERT INTO " + table + " (tx, n) SELECT 0, g FROM generate_series(1, 10) g");
            }

            @Override
            public void awaitStream(String table) throws Exception {
                Poll.until("the stream", Duration.ofSeconds(120), () -> "1".equals(db.queryValue(
                        "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = '" + table + "'")));
            }

            @Override
            public Connection connect() throws SQLException {
                return db.admin();
            }
        };
    }
}
