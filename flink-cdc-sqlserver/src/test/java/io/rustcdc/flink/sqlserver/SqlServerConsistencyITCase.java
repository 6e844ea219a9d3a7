package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.SinkGuarantee;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.sqlserver.testing.SqlServerDatabase;
import io.rustcdc.flink.sqlserver.testing.SqlServerExtension;
import io.rustcdc.flink.testing.consistency.ConsistencySuite;
import io.rustcdc.flink.testing.consistency.ConsistencyTarget;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The adversarial consistency suite on SQL Server: randomized writers and faults, a table created
 * while the job runs (enabled for CDC right after), the changelog replayed against the tables
 * (skipped without a server, see {@link SqlServerDatabase}).
 */
@ExtendWith(SqlServerExtension.class)
@Timeout(3600)
class SqlServerConsistencyITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).withHaLeadershipControl().build());

    @Test
    void randomizedWorkloadsAndFaultsKeepTheChangelogExact(SqlServerDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        ConsistencySuite.run(cluster, new Target(db), 2, true);
    }

    private static final class Target implements ConsistencyTarget {
        /** {@code INSERT INTO t (columns) VALUES (...), (...)}, as the suite writes it. */
        private static final Pattern INSERT = Pattern.compile("INSERT INTO (\\S+) \\(([^)]*)\\) VALUES (.*)",
                Pattern.DOTALL);

        private final SqlServerDatabase db;

        Target(SqlServerDatabase db) {
            this.db = db;
        }

        @Override
        public String server() {
            return "SQL Server " + db.queryValue("SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(64))");
        }

        @Override
        public Connection connect() throws SQLException {
            return db.admin();
        }

        /** CDC on the table, and its capture instance started (on a connection of its own). */
        @Override
        public void prepareTable(Connection c, String table) {
            db.enableTable(table);
        }

        /** A MERGE of the insert's rows on the key. */
        @Override
        public String upsert(String insert, String table, String keyColumns, String assignments) {
            Matcher m = INSERT.matcher(insert);
            if (!m.matches()) {
                throw new IllegalArgumentException("Not an INSERT ... VALUES the suite writes: " + insert);
            }
            String columns = m.group(2);
            StringBuilder on = new StringBuilder();
            for (String k : keyColumns.split(",\\s*")) {
                on.append(on.length() == 0 ? "" : " AND ").append(table).append('.').append(k).append(" = src.").append(k);
            }
            StringBuilder srcColumns = new StringBuilder();
            for (String col : columns.split(",\\s*")) {
                srcColumns.append(srcColumns.length() == 0 ? "" : ", ").append("src.").append(col);
            }
            return "MERGE INTO " + table + " WITH (HOLDLOCK) USING (VALUES " + m.group(3) + ") AS src (" + columns
                    + ") ON " + on + " WHEN MATCHED THEN UPDATE SET " + assignments + " WHEN NOT MATCHED THEN INSERT ("
                    + columns + ") VALUES (" + srcColumns + ");";
        }

        @Override
        public CdcSource<String, ?, ?> source(List<String> tables, int chunkSize, boolean atLeastOnceSinks, String run) {
            return CdcSource.builder()
                    .connector(SqlServerConnector.create(db.config().pollInterval(Duration.ofMillis(200)).build()))
                    .includeTables(tables.stream().map(t -> "dbo." + t).toArray(String[]::new))
                    .chunkSize(chunkSize)
                    .tableDiscoveryInterval(Duration.ofSeconds(1))
                    .sinkGuarantee(atLeastOnceSinks ? SinkGuarantee.AT_LEAST_ONCE : SinkGuarantee.EXACTLY_ONCE)
                    .deserializer(ChangeEventDeserializer.json())
                    .build();
        }
    }
}
