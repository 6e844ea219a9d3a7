package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
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
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code 'connector' = 'rustcdc-mariadb'} in Flink SQL, on a MiniCluster against real MariaDB; {@code 'rustcdc-mysql'}
 * against Oracle MySQL where {@code -Drustcdc.mysql.flavor=mysql} starts one (the module's {@code oracle-mysql}
 * execution).
 */
@ExtendWith(MySqlExtension.class)
@Timeout(300)
class MySqlSqlITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final AtomicLong SERVER_IDS = new AtomicLong(7100);

    private MySqlDatabase db;
    private boolean mariaDb;
    private StreamTableEnvironment tables;

    @BeforeEach
    void setUp(MySqlDatabase db) {
        this.db = db;
        this.mariaDb = db.server().isMariaDb();
        // no restarts, set on the environment itself: a job that fails must end, never retry while a test waits
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                Configuration.fromMap(Map.of("restart-strategy.type", "none")));
        env.setParallelism(2);
        env.enableCheckpointing(300);
        tables = StreamTableEnvironment.create(env);
        tables.getConfig().set("table.local-time-zone", "UTC");
    }

    private String with(String table, String extra) {
        return "WITH ('connector' = '" + connector() + "', 'hostname' = '" + db.host() + "', 'port' = '" + db.port()
                + "', 'username' = '" + db.cdcUser() + "', 'password' = '" + db.cdcPassword() + "', 'database-name' = '"
                + db.name() + "', 'table-name' = '" + table + "', 'server-id' = '" + SERVER_IDS.incrementAndGet()
                + "', 'scan.incremental.snapshot.chunk.size' = '50'" + extra + ")";
    }

    /** The connector of the server's flavor. */
    private String connector() {
        return mariaDb ? "rustcdc-mariadb" : "rustcdc-mysql";
    }

    @Test
    void rowsRowKindsTypesAndMetadata() throws Exception {
        // UUID and INET6 are MariaDB's own types, VECTOR Oracle MySQL 9's (MariaDB 11.4 has none): its floats 1.5,
        // -0.0 and the smallest subnormal, declared ARRAY<FLOAT NOT NULL>
        db.execute("CREATE TABLE orders (id BIGINT UNSIGNED PRIMARY KEY, amount DECIMAL(12,4) NOT NULL, "
                        + "placed_at TIMESTAMP(6) NULL, local_at DATETIME(3), flag TINYINT(1), paid BIT(1), "
                        + "state ENUM('new','paid'), note VARCHAR(20), big DECIMAL(65,30), y YEAR"
                        + (mariaDb ? ", uid UUID, ip INET6)" : ", v VECTOR(3))"),
                "SET SESSION time_zone = '+00:00'",
                "INSERT INTO orders VALUES (18446744073709551615, 12.5, '2024-03-30 23:30:00.123456', "
                        + "'2024-03-30 23:30:00.5', 1, b'1', 'new', 'one', 1.5, 2024"
                        + (mariaDb ? ", '123e4567-e89b-12d3-a456-426655440000', '::ffff:192.168.0.1')"
                                : ", x'0000c03f0000008001000000')"));
        tables.executeSql("CREATE TABLE orders (id DECIMAL(20, 0), amount DECIMAL(12,4) NOT NULL, "
                + "placed_at TIMESTAMP_LTZ(6), local_at TIMESTAMP(3), flag TINYINT, paid BOOLEAN, state STRING, "
                + "note STRING, big STRING, y SMALLINT, "
                + (mariaDb ? "uid STRING, ip STRING, " : "v ARRAY<FLOAT NOT NULL>, ")
                + "db STRING METADATA FROM 'database_name' VIRTUAL, tbl STRING METADATA FROM 'table_name' VIRTUAL, "
                + "kind STRING METADATA FROM 'row_kind' VIRTUAL, pos STRING METADATA FROM 'source_position' VIRTUAL, "
                + "PRIMARY KEY (id) NOT ENFORCED) " + with("orders", ""));
        TableResult result = tables.executeSql("SELECT * FROM orders");
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            rows.add(it.next());
            if (mariaDb) {
                db.execute("UPDATE orders SET note = 'uno' WHERE note = 'one'", "DELETE FROM orders");
            } else { // the vector shorter than declared (1.0, 2.0), then NULL, in the binlog
                db.execute("UPDATE orders SET note = 'uno', v = x'0000803f00000040' WHERE note = 'one'",
                        "UPDATE orders SET v = NULL", "DELETE FROM orders");
            }
            while (rows.size() < (mariaDb ? 4 : 6)) {
                rows.add(it.next());
            }
        }
        Row read = rows.get(0);
        assertThat(read.getKind()).isEqualTo(RowKind.INSERT);
        assertThat(read.getField("id")).isEqualTo(new BigDecimal("18446744073709551615"));
        assertThat(read.getField("amount")).isEqualTo(new BigDecimal("12.5000"));
        assertThat(read.getField("placed_at")).isEqualTo(Instant.parse("2024-03-30T23:30:00.123456Z"));
        assertThat(read.getField("local_at")).isEqualTo(LocalDateTime.of(2024, 3, 30, 23, 30, 0, 500_000_000));
        assertThat(read.getField("flag")).isEqualTo((byte) 1);
        assertThat(read.getField("paid")).isEqualTo(true);
        assertThat(read.getField("state")).isEqualTo("new");
        assertThat(read.getField("big")).isEqualTo("1.500000000000000000000000000000");
        assertThat(read.getField("y")).isEqualTo((short) 2024);
        assertThat(read.getField("db")).isEqualTo(db.name());
        assertThat(read.getField("tbl")).isEqualTo("orders");
        assertThat(rows.subList(1, rows.size())).extracting(Row::getKind).containsExactlyElementsOf(mariaDb
                ? List.of(RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE)
                : List.of(RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER,
                        RowKind.DELETE));
        assertThat(rows.get(2).getField("note")).isEqualTo("uno");
        for (Row row : List.of(read, rows.get(2))) { // MariaDB's UUID and INET6, from snapshot and binlog alike
            if (mariaDb) {
                assertThat(row.getField("uid")).isEqualTo("123e4567-e89b-12d3-a456-426655440000");
                assertThat(row.getField("ip")).isEqualTo("::ffff:192.168.0.1");
            }
        }
        if (!mariaDb) { // Oracle MySQL's VECTOR, bit for bit, from snapshot and binlog alike
            assertThat(bits(read.getField("v"))).containsExactly(0x3fc00000, 0x80000000, 0x00000001);
            assertThat(bits(rows.get(1).getField("v"))).containsExactly(0x3fc00000, 0x80000000, 0x00000001);
            assertThat(bits(rows.get(2).getField("v"))).containsExactly(0x3f800000, 0x40000000);
            assertThat(bits(rows.get(3).getField("v"))).containsExactly(0x3f800000, 0x40000000);
            assertThat(rows.get(4).getField("v")).isNull();
            assertThat(rows.get(5).getField("v")).isNull();
        }
        assertThat(rows.get(2).getField("id")).isEqualTo(new BigDecimal("18446744073709551615"));
        // file:offset#events.rows(the transaction's GTID) [the GTIDs before it]: MariaDB's domain-server-sequence,
        // Oracle MySQL's server_uuid:number (every transaction here is the test server's own)
        String uuid = mariaDb ? "" : db.server().value("SELECT @@server_uuid");
        assertThat((String) rows.get(2).getField("pos")).matches(mariaDb
                ? "mariadb-bin\\.\\d+:\\d+#\\d+\\.\\d+\\(\\d+-\\d+-\\d+\\) \\[[0-9-,]+]"
                : "mysql-bin\\.\\d+:\\d+#\\d+\\.\\d+\\(" + uuid + ":\\d+\\) \\[" + uuid + ":1-\\d+]");
    }

    private static List<Integer> bits(Object array) {
        List<Integer> bits = new ArrayList<>();
        for (Float f : (Float[]) array) {
            bits.add(Float.floatToRawIntBits(f));
        }
        return bits;
    }

    /**
     * Three shard tables as one SQL table ('database-name' and 'table-name' both patterns), told apart by
     * table_name, under a random workload while the snapshot and the stream run; a fourth shard created
     * later is found, snapshotted and streamed; shard_10 does not match shard_? and stays out. On
     * MariaDB, and on Oracle MySQL with -Drustcdc.mysql.flavor=mysql.
     */
    @Test
    void shardTablesMatchingAPatternAreOneTableToldApartByTableName() throws Exception {
        try (ShardWorkload workload = new ShardWorkload(db, "MySqlSqlITCase")) {
            shards(workload);
        }
    }

    private void shards(ShardWorkload workload) throws Exception {
        for (String shard : List.of("shard_1", "shard_2", "shard_3", "shard_10")) {
            db.execute("CREATE TABLE " + shard + " (id INT PRIMARY KEY, qty INT NOT NULL, note VARCHAR(20))");
        }
        db.execute("INSERT INTO shard_10 VALUES (1, 1, 'not a shard_?')");
        for (String shard : List.of("shard_1", "shard_2", "shard_3")) {
            workload.add(shard, 25);
        }
        String database = db.name().substring(0, db.name().length() - 1) + "?";
        tables.executeSql("CREATE TABLE shards (id INT, qty INT NOT NULL, note STRING, "
                + "tbl STRING METADATA FROM 'table_name' VIRTUAL, dbn STRING METADATA FROM 'database_name' VIRTUAL) "
                + with("shard_?", ", 'scan.table-discovery.interval' = '1 s'")
                        .replace("chunk.size' = '50'", "chunk.size' = '10'")
                        .replace("'database-name' = '" + db.name() + "'", "'database-name' = '" + database + "'"));
        try (ShardWorkload.Changelog changelog = new ShardWorkload.Changelog(tables.executeSql("SELECT * FROM shards"))) {
            workload.stepUntil(changelog::anyRow, 100); // writes while the job starts and snapshots
            for (int i = 0; i < 40; i++) {
                workload.step();
            }
            db.execute("CREATE TABLE shard_4 (id INT PRIMARY KEY, qty INT NOT NULL, note VARCHAR(20))");
            workload.add("shard_4", 10);
            for (int i = 0; i < 40; i++) {
                workload.step();
            }
            changelog.awaitEqual(workload, Duration.ofSeconds(60));
            assertThat(changelog.values("dbn")).as("the database's name, not the pattern").containsExactly(db.name());
        }
    }

    @Test
    void aTinyint1DeclaredBooleanCarriesZeroAndOneAndFailsOnAnythingElse() throws Exception {
        db.execute("CREATE TABLE flags (id INT PRIMARY KEY, active TINYINT(1))", "INSERT INTO flags VALUES (1, 0), (2, 1)");
        tables.executeSql("CREATE TABLE flags (id INT, active BOOLEAN) " + with("flags", ""));
        List<String> seen = new ArrayList<>();
        TableResult result = tables.executeSql("SELECT * FROM flags");
        try (CloseableIterator<Row> it = result.collect()) {
            while (seen.size() < 2) {
                Row row = it.next();
                seen.add(row.getField("id") + "=" + row.getField("active"));
            }
            db.execute("INSERT INTO flags VALUES (3, 2)");
            // the job's own result is the witness of its failure, not the collecting iterator
            assertThatThrownBy(() -> result.getJobClient().orElseThrow().getJobExecutionResult().get(120, TimeUnit.SECONDS))
                    .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                            .contains("a TINYINT(1) value other than 0 and 1, which BOOLEAN cannot hold").contains("active"));
        }
        assertThat(seen).containsExactlyInAnyOrder("1=false", "2=true");
    }

    /**
     * A MODIFY that rounds the stored values (DECIMAL(10,2) to DECIMAL(10,1)) logs no row change: the job fails at
     * it, naming both types, instead of going on with the old values downstream (found by an adversarial probe); a
     * wider VARCHAR before it keeps every value and goes on.
     */
    @Test
    void aModifyThatMayRewriteStoredValuesFailsAtTheChange() throws Exception {
        db.execute("CREATE TABLE rw (id INT PRIMARY KEY, n DECIMAL(10,2), note VARCHAR(10))",
                "INSERT INTO rw VALUES (1, 1.25, 'a')");
        tables.executeSql("CREATE TABLE rw (id INT, n STRING, note STRING) " + with("rw", ""));
        TableResult result = tables.executeSql("SELECT * FROM rw");
        try (CloseableIterator<Row> it = result.collect()) {
            assertThat(it.next().getField("n")).isEqualTo("1.25");
            db.execute("ALTER TABLE rw MODIFY note VARCHAR(20)", "INSERT INTO rw VALUES (2, 2.5, 'b')");
            assertThat(it.next().getField("id")).as("a wider VARCHAR goes on").isEqualTo(2);
            // rounding, which a strict sql_mode may refuse
            db.execute("SET SESSION sql_mode = ''", "ALTER TABLE rw MODIFY n DECIMAL(10,1)",
                    "INSERT INTO rw VALUES (3, 3.5, 'c')");
            assertThatThrownBy(() -> result.getJobClient().orElseThrow().getJobExecutionResult().get(120, TimeUnit.SECONDS))
                    .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                            .contains("changed its source type from decimal(10,2) to decimal(10,1), which may have "
                                    + "rewritten its stored values").contains(db.name() + ".rw"));
        }
        assertThat(db.queryValue("SELECT n FROM rw WHERE id = 1")).isEqualTo("1.3");
    }

    /**
     * A character set conversion is a type change of the column's shape: latin1 to utf8mb4 keeps every character
     * and goes on; utf8mb4 to latin1 under a non-strict sql_mode writes '?' for an emoji without a row change, and
     * the job fails at it, naming both types (found by an adversarial probe: both went on before).
     */
    @Test
    void aLossyCharacterSetConversionFailsAtTheChange() throws Exception {
        db.execute("CREATE TABLE cv (id INT PRIMARY KEY, note VARCHAR(10) CHARACTER SET latin1)",
                "INSERT INTO cv VALUES (1, '\u00e9')");
        tables.executeSql("CREATE TABLE cv (id INT, note STRING) " + with("cv", ""));
        TableResult result = tables.executeSql("SELECT * FROM cv");
        try (CloseableIterator<Row> it = result.collect()) {
            assertThat(it.next().getField("note")).isEqualTo("\u00e9");
            db.execute("INSERT INTO cv VALUES (2, 'b')");
            assertThat(it.next().getField("id")).isEqualTo(2);
            db.execute("ALTER TABLE cv MODIFY note VARCHAR(10) CHARACTER SET utf8mb4",
                    "INSERT INTO cv VALUES (3, '\uD83D\uDE00')");
            assertThat(it.next().getField("note")).as("latin1 to utf8mb4 goes on").isEqualTo("\uD83D\uDE00");
            db.execute("SET SESSION sql_mode = ''", "ALTER TABLE cv MODIFY note VARCHAR(10) CHARACTER SET latin1",
                    "INSERT INTO cv VALUES (4, 'd')");
            assertThatThrownBy(() -> result.getJobClient().orElseThrow().getJobExecutionResult().get(120, TimeUnit.SECONDS))
                    .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                            .contains("changed its source type from varchar(10) to varchar(10) character set latin1, "
                                    + "which may have rewritten its stored values").contains(db.name() + ".cv"));
        }
        assertThat(db.queryValue("SELECT HEX(note) FROM cv WHERE id = 3")).isEqualTo("3F");
    }

    @Test
    void lossyDeclaredTypesAreRefusedWhenTheJobIsPlanned() {
        // on Oracle MySQL also a VECTOR declared with an element type that is not FLOAT or DOUBLE
        db.execute("CREATE TABLE lossy (id BIGINT UNSIGNED PRIMARY KEY, small TINYINT UNSIGNED, d DECIMAL(65,30)"
                + (mariaDb ? ")" : ", v VECTOR(3))"));
        tables.executeSql("CREATE TABLE lossy (id BIGINT, small TINYINT, d DECIMAL(38, 30)"
                + (mariaDb ? ") " : ", v ARRAY<DECIMAL(10, 2)>) ") + with("lossy", ""));
        // the source type as the server names it: Oracle MySQL 8.0.19+ no longer shows integer display widths
        String bigint = mariaDb ? "bigint(20) unsigned" : "bigint unsigned";
        String tinyint = mariaDb ? "tinyint(3) unsigned" : "tinyint unsigned";
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM lossy"))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("column id: declared BIGINT cannot hold the source type " + bigint + " exactly")
                        .contains("(the default mapping is DECIMAL(20, 0))")
                        .contains("column small: declared TINYINT cannot hold the source type " + tinyint)
                        .contains("(the default mapping is SMALLINT)")
                        .contains("column d: declared DECIMAL(38, 30) cannot hold the source type decimal(65,30)")
                        .satisfies(text -> {
                            if (!mariaDb) {
                                assertThat(text)
                                        .contains("column v: declared ARRAY<DECIMAL(10, 2)> cannot hold the source type "
                                                + "vector(3)")
                                        .contains("(the default mapping is ARRAY<FLOAT>)");
                            }
                        }));
    }

    @Test
    void aMissingServerIdIsRefusedNamingTheOption() {
        db.execute("CREATE TABLE t (id INT PRIMARY KEY)");
        tables.executeSql("CREATE TABLE t (id INT) WITH ('connector' = '" + connector() + "', 'hostname' = '" + db.host()
                + "', 'port' = '" + db.port() + "', 'username' = '" + db.cdcUser() + "', 'password' = '"
                + db.cdcPassword() + "', 'database-name' = '" + db.name() + "', 'table-name' = 't')");
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM t"))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e)).contains("server-id"));
    }

    /** The MySQL connector refuses a MariaDB server, and the MariaDB connector an Oracle MySQL one (JobFailure). */
    @Test
    void theConnectorOfTheOtherFlavorRefusesTheServer() throws Exception {
        String other = mariaDb ? "rustcdc-mysql" : "rustcdc-mariadb";
        db.execute("CREATE TABLE m (id INT PRIMARY KEY)");
        tables.executeSql("CREATE TABLE m (id INT) " + with("m", "").replace("'" + connector() + "'", "'" + other + "'"));
        assertThat(JobFailure.of(tables, "SELECT * FROM m"))
                .contains("but the source is configured for " + (mariaDb ? "MYSQL" : "MARIADB"))
                .contains("Use '" + connector() + "'");
    }
}
