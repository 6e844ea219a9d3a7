package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
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
 * {@code scan.transaction-boundaries = preserve} on MariaDB and Oracle MySQL ({@link
 * TransactionBoundariesRun}): each transaction (its XID commit the end) in one checkpoint, one over the
 * bound cut only at multiples of it with its warning; at parallelism 1, and at 3 with the stream on a
 * subtask other than 0; the TaskManager killed twice in each.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(400)
class MySqlTransactionBoundariesITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(3).build());

    @Test
    void atParallelismOneNoTransactionFallsAcrossTwoCheckpoints(MySqlDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        assertThat(TransactionBoundariesRun.run(target(db), "txb_p1", 1, cluster)).isZero();
    }

    @Test
    void withTheStreamOnASubtaskOtherThanTheFirstNoTransactionFallsAcrossTwoCheckpoints(MySqlDatabase db,
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        assertThat(TransactionBoundariesRun.run(target(db), "txb_p3", 3, cluster)).isNotZero();
    }

    private static TransactionBoundariesRun.Target target(MySqlDatabase db) {
        return new TransactionBoundariesRun.Target() {
            @Override
            public CdcConnector<?, ?> connector(String table) {
                return MySqlConnector.create(MySqlTestConfigs.config(db));
            }

            @Override
            public String include(String table) {
                return db.name() + "." + table;
            }

            @Override
            public void createTable(String table) {
                db.execute("CREATE TABLE " + table + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, tx INT NOT NULL, "
                        + "n INT NOT NULL, KEY (tx))",
                        "INSERT INTO " + table + " (tx, n) VALUES (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7), "
                                + "(0, 8), (0, 9), (0, 10)");
            }

            @Override
            public void awaitStream(String table) throws Exception {
                Poll.until("the binlog stream", Duration.ofSeconds(120), () -> !"0".equals(db.queryValue(
                        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")));
            }

            @Override
            public Connection connect() throws SQLException {
                return db.admin();
            }
        };
    }
}
