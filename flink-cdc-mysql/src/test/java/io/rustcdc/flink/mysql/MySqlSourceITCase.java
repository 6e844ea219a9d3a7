package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.ColumnDdlUnderWriters;
import io.rustcdc.flink.testing.DdlServer;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.KeyChangedWhileWaiting;
import io.rustcdc.flink.testing.ReadGate;
import io.rustcdc.flink.testing.SourceJob;
import io.rustcdc.flink.testing.TableDdlUnderWriters;
import io.rustcdc.flink.testing.TwoTables;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The whole source on a Flink MiniCluster against real MariaDB. */
@ExtendWith(MySqlExtension.class)
@Timeout(300)
class MySqlSourceITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Map<String, List<String>> KEYS = TwoTables.KEYS;

    @Test
    void parallelSnapshotUnderConcurrentWritesHandsOffExactly(MySqlDatabase db) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        MySqlWriters.createTables(db, 3000);
        CdcSource<String, MySqlPosition, MySqlPosition> source = CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.config(db)))
                .includeTables(db.name() + ".t1", db.name() + ".t2")
                .chunkSize(100)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        JsonChangelog changelog = TwoTables.underConcurrentWrites(source,
                () -> MySqlWriters.start(db, 2, 6_000, 3000), db::admin);
        assertThat(changelog.violations()).isEmpty();
        assertThat(changelog.ops()).containsKeys("read", "insert", "update", "delete");
    }

    /**
     * A table whose text key's collation changes while it waits behind another table's snapshot (utf8mb4_bin, where
     * upper case sorts first, to utf8mb4_general_ci, where case does not count), changed before and after that: its
     * chunks are planned and read in the new order, and the changelog ends equal to the table. Before, the planner
     * kept the key described at the job's start and failed the table's first chunk end ({@code STATE}).
     */
    @Test
    void aTableWhoseKeyCollationChangedWhileItWaitedIsSnapshottedInTheNewOrder(MySqlDatabase db) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        db.execute("CREATE TABLE wa (id INT PRIMARY KEY)", "INSERT INTO wa VALUES (1), (2), (3)",
                "CREATE TABLE wb (k VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY, v INT NOT NULL)",
                "INSERT INTO wb VALUES " + KeyChangedWhileWaiting.rows());
        KeyChangedWhileWaiting.run(db, CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.config(db)))
                .includeTables(db.name() + ".wa", db.name() + ".wb")
                .chunkSize(4)
                .deserializer(new ReadGate())
                .build(), "ALTER TABLE wb MODIFY k VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci");
    }

    @Test
    void snapshotModeReadsTheTablesAndFinishes(MySqlDatabase db) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        MySqlWriters.createTables(db, 500);
        CdcSource<String, MySqlPosition, MySqlPosition> source = CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.config(db)))
                .includeTables(db.name() + ".t*")
                .chunkSize(64)
                .startupMode(StartupMode.snapshot())
                .deserializer(ChangeEventDeserializer.json())
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(3);
        JsonChangelog changelog = new JsonChangelog(KEYS);
        try (CloseableIterator<String> it = env.fromSource(source, WatermarkStrategy.noWatermarks(), "mariadb")
                .executeAndCollect()) {
            it.forEachRemaining(changelog::apply);
        }
        assertThat(changelog.violations()).isEmpty();
        assertThat(changelog.rows("t1")).isEqualTo(t1(db));
        assertThat(changelog.rows("t2")).isEqualTo(t2(db));
        assertThat(changelog.ops()).containsOnlyKeys("read");
    }

    @Test
    void specificOffsetStreamsFromTheGivenPositionOnly(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE so (id INT PRIMARY KEY)", "INSERT INTO so VALUES (1)");
        List<String> status = db.binlogStatus();
        db.execute("INSERT INTO so VALUES (2)");
        CdcSource<String, MySqlPosition, MySqlPosition> source = CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.config(db)))
                .includeTables(db.name() + ".so")
                .startupMode(StartupMode.position(status.get(0) + ":" + status.get(1)))
                .deserializer(ChangeEventDeserializer.json())
                .build();
        List<String> seen = new java.util.ArrayList<>();
        try (SourceJob job = new SourceJob(source, 1)) {
            while (!seen.contains("insert 3")) {
                String r = job.records.poll(60, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(r).as("an event within a minute; so far " + seen).isNotNull();
                var json = MAPPER.readTree(r);
                seen.add(json.get("op").asText() + " " + json.get("after").get("id").asText());
                if (seen.equals(List.of("insert 2"))) {
                    db.execute("INSERT INTO so VALUES (3)");
                }
            }
        }
        assertThat(seen).containsExactly("insert 2", "insert 3");
    }

    /**
     * Column DDL (add, add with a default, drop, widen, rename) at random moments while writers change
     * the table: between chunks of its snapshot and during the stream; the changelog, schema changes
     * applied, ends exactly as the table (seed printed, replay with {@code -Drustcdc.ddl.seed=N}).
     */
    @Test
    void columnDdlUnderWritersDuringTheSnapshotAndTheStreamKeepsTheChangelogExact(MySqlDatabase db) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        try {
            ColumnDdlUnderWriters.run(ddlServer(db),
                    (table, column, type) -> "ALTER TABLE " + table + " MODIFY " + column + " " + type);
        } finally {
            ReadGate.reset();
        }
    }

    /**
     * The table renamed away or dropped, and created again (same or other columns), or on MariaDB
     * replaced by {@code CREATE OR REPLACE TABLE}, and written to, while writers change it: during the
     * stream the old table's changelog is exact up to {@code table_dropped} (then {@code table_created})
     * or {@code table_replaced}, the new table's after it; between chunks of the snapshot the job fails
     * ({@code STATE}). Seed printed, replay with {@code -Drustcdc.tableddl.seed=N}.
     */
    @Test
    void tableReplacedUnderWritersDuringTheStreamAndTheSnapshot(MySqlDatabase db) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        boolean mariaDb = db.server().isMariaDb();
        try {
            TableDdlUnderWriters.run(ddlServer(db), new TableDdlUnderWriters.Replacements(false,
                    mariaDb ? List.of(TableDdlUnderWriters.Kind.values())
                            : List.of(TableDdlUnderWriters.Kind.RENAME_AND_CREATE, TableDdlUnderWriters.Kind.DROP_AND_CREATE),
                    (from, to) -> "RENAME TABLE " + from + " TO " + to,
                    kind -> kind == TableDdlUnderWriters.Kind.CREATE_OR_REPLACE ? List.of("table_replaced")
                            : List.of("table_dropped", "table_created")));
        } finally {
            ReadGate.reset();
        }
    }

    /** The server for the DDL-under-writers tests. */
    private static DdlServer ddlServer(MySqlDatabase db) {
        return new DdlServer() {
            @Override
            public String name() {
                return db.queryValue("SELECT VERSION()");
            }

            @Override
            public Connection connect() throws SQLException {
                return db.admin();
            }

            @Override
            public CdcSource<String, ?, ?> source(String table, int chunkSize, String run) {
                return CdcSource.builder()
                        .connector(MySqlConnector.create(MySqlTestConfigs.config(db)))
                        .includeTables(db.name() + "." + table)
                        .chunkSize(chunkSize)
                        .deserializer(new ReadGate())
                        .build();
            }
        };
    }

    static Map<String, String> t1(MySqlDatabase db) throws Exception {
        try (Connection c = db.admin()) {
            return TwoTables.t1(c);
        }
    }

    static Map<String, String> t2(MySqlDatabase db) throws Exception {
        try (Connection c = db.admin()) {
            return TwoTables.t2(c);
        }
    }
}
