package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.sqlserver.testing.SqlServerDatabase;
import io.rustcdc.flink.sqlserver.testing.SqlServerExtension;
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
 * {@code scan.transaction-boundaries = preserve} on SQL Server ({@link TransactionBoundariesRun}): each
 * transaction in one checkpoint, one over the bound cut only at multiples of it with its warning; pages
 * of 500 rows, so that full pages cut windows inside transactions; at parallelism 1, and at 3 with the
 * stream on a subtask other than 0, the TaskManager killed twice in each (skipped without a server, see
 * {@link SqlServerDatabase}).
 */
@ExtendWith(SqlServerExtension.class)
@Timeout(600)
class SqlServerTransactionBoundariesITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(3).build());

    @Test
    void atParallelismOneNoTransactionFallsAcrossTwoCheckpoints(SqlServerDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        assertThat(TransactionBoundariesRun.run(target(db), "txb_p1", 1, cluster)).isZero();
    }

    @Test
    void withTheStreamOnASubtaskOtherThanTheFirstNoTransactionFallsAcrossTwoCheckpoints(SqlServerDatabase db,
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        assertThat(TransactionBoundariesRun.run(target(db), "txb_p3", 3, cluster)).isNotZero();
    }

    private static TransactionBoundariesRun.Target target(SqlServerDatabase db) {
        return new TransactionBoundariesRun.Target() {
            @Override
            public CdcConnector<?, ?> connector(String table) {
                return SqlServerConnector.create(db.config().pollInterval(Duration.ofMillis(100)).maxEventsPerPoll(500)
                        .build());
            }

            @Override
            public String include(String table) {
                return "dbo." + table;
            }

            @Override
            public void createTable(String table) {
                StringBuilder rows = new StringBuilder();
                for (int n = 1; n <= 10; n++) {
                    rows.append(n == 1 ? "" : ", ").append("(0, ").append(n).append(')');
                }
                db.execute("CREATE TABLE " + table + " (id BIGINT IDENTITY PRIMARY KEY, tx INT NOT NULL, n INT NOT NULL)",
                        "CREATE INDEX " + table + "_tx ON " + table + " (tx)",
                        "INSERT INTO " + table + " (tx, n) VALUES " + rows);
                db.enableTable(table);
            }

            /**
             * The source's sessions are on the server; the run then waits for the snapshot's rows, after which
             * every write commits above the chunk's mark and is streamed.
             */
            @Override
            public void awaitStream(String table) throws Exception {
                Poll.until("the source's sessions", Duration.ofSeconds(120), () -> !"0".equals(db.queryValue(
                        "SELECT COUNT(*) FROM sys.dm_exec_sessions WHERE program_name = N'rustcdc' AND database_id = "
                                + "DB_ID()")));
            }

            @Override
            public Connection connect() throws SQLException {
                return db.admin();
            }
        };
    }
}
