package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A SQL table whose source table is truncated, dropped or renamed away while the job streams: each ends
 * the table's changelog (its rows would never be retracted), so each fails the job loudly, naming the
 * source and the Flink table and the remedy, on a MiniCluster against real MariaDB, and against Oracle MySQL
 * where {@code -Drustcdc.mysql.flavor=mysql} starts one (the module's {@code oracle-mysql} execution).
 */
@ExtendWith(MySqlExtension.class)
@Timeout(300)
class MySqlSqlTableGoneITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final AtomicLong SERVER_IDS = new AtomicLong(7300);

    private MySqlDatabase db;
    private StreamTableEnvironment tables;

    @BeforeEach
    void setUp(MySqlDatabase db) {
        this.db = db;
        // no restarts, set on the environment itself: a job that fails must end, never retry while a test waits
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                Configuration.fromMap(Map.of("restart-strategy.type", "none")));
        env.setParallelism(2);
        env.enableCheckpointing(300);
        tables = StreamTableEnvironment.create(env);
    }

    private String with(String table) {
        String connector = db.server().isMariaDb() ? "rustcdc-mariadb" : "rustcdc-mysql";
        return "WITH ('connector' = '" + connector + "', 'hostname' = '" + db.host() + "', 'port' = '" + db.port()
                + "', 'username' = '" + db.cdcUser() + "', 'password' = '" + db.cdcPassword() + "', 'database-name' = '"
                + db.name() + "', 'table-name' = '" + table + "', 'server-id' = '" + SERVER_IDS.incrementAndGet() + "')";
    }

    /**
     * Streams {@code table} (two snapshot rows, then one streamed insert, so the binlog reader is past
     * the snapshot), runs {@code statements}, and returns the job's failure as text.
     */
    private String failureAfter(String table, String... statements) throws Exception {
        db.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, note VARCHAR(20))",
                "INSERT INTO " + table + " VALUES (1, 'one'), (2, 'two')");
        tables.executeSql("CREATE TABLE flink_" + table + " (id INT, note STRING) " + with(table));
        TableResult result = tables.executeSql("SELECT * FROM flink_" + table);
        List<Object> seen = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (seen.size() < 2) {
                seen.add(it.next().getField("id"));
            }
            db.execute("INSERT INTO " + table + " VALUES (3, 'three')");
            seen.add(it.next().getField("id"));
            assertThat(seen).containsExactlyInAnyOrder(1, 2, 3);
            db.execute(statements);
            // the job's own result is the witness of its failure, not the collecting iterator
            List<String> failure = new ArrayList<>();
            assertThatThrownBy(() -> result.getJobClient().orElseThrow().getJobExecutionResult().get(120, TimeUnit.SECONDS))
                    .satisfies(e -> failure.add(ExceptionUtils.stringifyException(e)));
            return failure.get(0);
        }
    }

    private String qualified(String table) {
        return db.name() + "." + table;
    }

    @Test
    void aTruncateFailsTheJob() throws Exception {
        assertThat(failureAfter("truncated", "TRUNCATE TABLE truncated"))
                .contains("CdcException[DECODE]")
                .contains("Table " + qualified("truncated")
                        + " (read by Flink table default_catalog.default_database.flink_truncated) was truncated; "
                        + "a Flink changelog cannot express a truncate without the rows it removed. Restart the job "
                        + "without state to read the table anew.");
    }

    @Test
    void aDropTableFailsTheJobTheSameWay() throws Exception {
        assertThat(failureAfter("dropped", "DROP TABLE dropped"))
                .contains("CdcException[DECODE]")
                .contains("Table " + qualified("dropped")
                        + " (read by Flink table default_catalog.default_database.flink_dropped) was dropped at the "
                        + "source; a Flink changelog cannot express a drop without the rows it removed, so the table's "
                        + "rows are not retracted and its changelog cannot continue. Recreate the table "
                        + qualified("dropped") + " and restart the job without state to read it anew, or remove the "
                        + "table from the job.");
    }

    @Test
    void aRenameTableAwayFailsTheJobTheSameWay() throws Exception {
        // the new name is not read by this table: its creation is left out, and its rows too
        assertThat(failureAfter("renamed", "RENAME TABLE renamed TO renamed_old",
                "INSERT INTO renamed_old VALUES (4, 'four')"))
                .contains("CdcException[DECODE]")
                .contains("Table " + qualified("renamed")
                        + " (read by Flink table default_catalog.default_database.flink_renamed) was renamed at the "
                        + "source, which ends the changelog of its name as a drop does; a Flink changelog cannot "
                        + "express a drop without the rows it removed, so the table's rows are not retracted")
                .contains("Recreate the table " + qualified("renamed") + " (or rename it back) and restart the job "
                        + "without state to read it anew, or remove the table from the job.");
    }

    @Test
    void anAlterTableRenameAwayFailsTheJobTheSameWay() throws Exception {
        assertThat(failureAfter("altered", "ALTER TABLE altered RENAME TO altered_old"))
                .contains("CdcException[DECODE]")
                .contains("Table " + qualified("altered")
                        + " (read by Flink table default_catalog.default_database.flink_altered) was renamed at the "
                        + "source")
                .contains("the table's rows are not retracted");
    }
}
