package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.sqlserver.testing.SqlServerDatabase;
import io.rustcdc.flink.sqlserver.testing.SqlServerExtension;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * {@code 'connector' = 'rustcdc-sqlserver'} through the Table API on a MiniCluster, against the SQL
 * Server given by {@code RUSTCDC_TEST_SQLSERVER_URL}, {@code _USER} and {@code _PASSWORD}; every test
 * is reported as skipped without one. Snapshot then stream with SQL Server's types in their default
 * mapping and the metadata columns, both changelog modes, and lossy declared types refused at planning
 * against the real catalogue.
 */
@ExtendWith(SqlServerExtension.class)
@Timeout(300)
class SqlServerSqlITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private SqlServerDatabase db;
    private StreamTableEnvironment tables;

    @BeforeEach
    void setUp(SqlServerDatabase db) {
        this.db = db;
        // no restarts: a job that fails must end, never retry while a test waits
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                Configuration.fromMap(Map.of("restart-strategy.type", "none")));
        env.setParallelism(2);
        env.enableCheckpointing(300);
        tables = StreamTableEnvironment.create(env);
        tables.getConfig().set("table.local-time-zone", "UTC");
    }

    private String with(String table, String extra) {
        return "WITH ('connector' = 'rustcdc-sqlserver', 'hostname' = '" + db.host() + "', 'port' = '" + db.port()
                + "', 'username' = '" + db.user() + "', 'password' = '" + db.password() + "', 'database-name' = '"
                + db.name() + "', 'table-name' = '" + table + "', 'tls.mode' = '"
                + db.tlsMode().name().toLowerCase(Locale.ROOT) + "', 'stream.poll-interval' = '200 ms', "
                + "'scan.incremental.snapshot.chunk.size' = '50'" + extra + ")";
    }

    private static List<Row> take(CloseableIterator<Row> it, int n) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(it.next());
        }
        return rows;
    }

    @Test
    void snapshotThenStreamWithEveryKindOfTypeAndTheMetadata() throws Exception {
        db.execute("CREATE TABLE orders (id INT PRIMARY KEY, small TINYINT, amount MONEY NOT NULL, "
                        + "exact DECIMAL(38,10), placed DATETIME2(7), at_time TIME(3), offset_at DATETIMEOFFSET(7), "
                        + "uid UNIQUEIDENTIFIER, note NVARCHAR(40), code BINARY(2), day DATE, flag BIT, rv ROWVERSION)",
                "INSERT INTO orders (id, small, amount, exact, placed, at_time, offset_at, uid, note, code, day, flag) "
                        + "VALUES (1, 255, -922337203685477.5808, 1234567890123456789012345678.0123456789, "
                        + "'9999-12-31T23:59:59.9999999', '23:59:59.998', '2026-07-20T12:34:56.1234567-14:00', "
                        + "'6F9619FF-8B86-D011-B42D-00C04FC964FF', N'😀 ünïcödé', 0xDEAD, '0001-01-01', 1)");
        db.enableTable("orders");
        tables.executeSql("CREATE TABLE orders (id INT NOT NULL, small SMALLINT, amount DECIMAL(19, 4) NOT NULL, "
                + "exact DECIMAL(38, 10), placed TIMESTAMP(7), at_time TIME(3), offset_at STRING, uid STRING, "
                + "note STRING, code BYTES, day DATE, flag BOOLEAN, rv BYTES NOT NULL, "
                + "db STRING METADATA FROM 'database_name' VIRTUAL, sch STRING METADATA FROM 'schema_name' VIRTUAL, "
                + "tbl STRING METADATA FROM 'table_name' VIRTUAL, kind STRING METADATA FROM 'row_kind' VIRTUAL, "
                + "pos STRING METADATA FROM 'source_position' VIRTUAL, PRIMARY KEY (id) NOT ENFORCED) "
                + with("orders", ""));
        TableResult result = tables.executeSql("SELECT * FROM orders");
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            rows.add(it.next());
            db.execute("UPDATE orders SET note = N'uno', small = 0 WHERE id = 1", "DELETE FROM orders WHERE id = 1");
            rows.addAll(take(it, 3));
        } finally {
            result.getJobClient().orElseThrow().cancel();
        }
        Row read = rows.get(0);
        assertThat(read.getKind()).isEqualTo(RowKind.INSERT);
        assertThat(read.getField("small")).isEqualTo((short) 255);
        assertThat(read.getField("amount")).isEqualTo(new BigDecimal("-922337203685477.5808"));
        assertThat(read.getField("exact")).isEqualTo(new BigDecimal("1234567890123456789012345678.0123456789"));
        assertThat(read.getField("placed")).isEqualTo(LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_900));
        assertThat(read.getField("at_time")).isEqualTo(LocalTime.of(23, 59, 59, 998_000_000));
        assertThat(read.getField("offset_at")).isEqualTo("2026-07-20T12:34:56.1234567-14:00");
        assertThat(read.getField("uid")).isEqualTo("6f9619ff-8b86-d011-b42d-00c04fc964ff");
        assertThat(read.getField("note")).isEqualTo("😀 ünïcödé");
        assertThat(read.getField("code")).isEqualTo(new byte[] {(byte) 0xDE, (byte) 0xAD});
        assertThat(read.getField("day")).isEqualTo(LocalDate.of(1, 1, 1));
        assertThat(read.getField("flag")).isEqualTo(true);
        assertThat((byte[]) read.getField("rv")).hasSize(8);
        assertThat(read.getField("db")).isEqualTo(db.name());
        assertThat(read.getField("sch")).isEqualTo("dbo");
        assertThat(read.getField("tbl")).isEqualTo("orders");
        assertThat(read.getField("pos")).isNull();
        assertThat(rows.subList(1, 4)).extracting(Row::getKind)
                .containsExactly(RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE);
        assertThat(rows.subList(1, 4)).extracting(r -> r.getField("kind")).containsExactly("-U", "+U", "-D");
        assertThat(rows.get(1).getField("note")).isEqualTo("😀 ünïcödé");
        assertThat(rows.get(2).getField("note")).isEqualTo("uno");
        assertThat(rows.get(2).getField("small")).isEqualTo((short) 0);
        assertThat(rows.get(2).getField("amount")).isEqualTo(new BigDecimal("-922337203685477.5808"));
        assertThat(rows.get(2).getField("placed")).isEqualTo(LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_900));
        // commit/command id/seqval#operation: the change's own position
        assertThat((String) rows.get(2).getField("pos"))
                .matches("[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{4}/\\d+/[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{4}#4");
    }

    /**
     * With 'server-time-zone', op_ts is the commit time and transaction_id the commit LSN, the same for a
     * transaction's rows, under preserved transaction boundaries.
     */
    @Test
    void commitTimesAndTransactionIdsWithPreservedBoundaries() throws Exception {
        db.execute("CREATE TABLE tx_orders (id INT PRIMARY KEY, v INT NOT NULL)");
        db.enableTable("tx_orders");
        tables.executeSql("CREATE TABLE tx_orders (id INT NOT NULL, v INT NOT NULL, "
                + "op_ts TIMESTAMP_LTZ(3) METADATA VIRTUAL, tx STRING METADATA FROM 'transaction_id' VIRTUAL, "
                + "pos STRING METADATA FROM 'source_position' VIRTUAL, PRIMARY KEY (id) NOT ENFORCED) "
                + with("tx_orders", ", 'server-time-zone' = '" + db.serverTimeZone() + "', "
                        + "'scan.transaction-boundaries' = 'preserve'"));
        TableResult result = tables.executeSql("SELECT id, op_ts, tx, pos FROM tx_orders");
        List<Row> rows;
        java.time.Instant before;
        java.time.Instant after;
        try (CloseableIterator<Row> it = result.collect()) {
            // the first row is written until the job streams (a row written during the snapshot may be read by it)
            db.execute("INSERT INTO tx_orders VALUES (0, 0)");
            it.next();
            before = db.serverNow();
            db.execute("BEGIN TRAN; INSERT INTO tx_orders VALUES (1, 1); INSERT INTO tx_orders VALUES (2, 2); COMMIT",
                    "INSERT INTO tx_orders VALUES (3, 3)");
            after = db.serverNow();
            rows = take(it, 3);
        } finally {
            result.getJobClient().orElseThrow().cancel();
        }
        assertThat(rows).extracting(r -> r.getField("id")).containsExactly(1, 2, 3);
        String tx = (String) rows.get(0).getField("tx");
        assertThat(tx).matches("[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{4}");
        assertThat((String) rows.get(0).getField("pos")).startsWith(tx + "/");
        assertThat(rows.get(1).getField("tx")).isEqualTo(tx);
        assertThat(rows.get(2).getField("tx")).isNotEqualTo(tx);
        assertThat(rows.get(1).getField("op_ts")).isEqualTo(rows.get(0).getField("op_ts"));
        for (Row r : rows) {
            assertThat((java.time.Instant) r.getField("op_ts")).isBetween(before.minusMillis(5), after.plusMillis(5));
        }
    }

    @Test
    void upsertModeIsKeyedAndAKeyUpdateDeletesTheOldKey() throws Exception {
        db.execute("CREATE TABLE items (id INT PRIMARY KEY, name NVARCHAR(MAX))",
                "INSERT INTO items VALUES (1, N'one'), (2, N'two')");
        db.enableTable("items");
        tables.executeSql("CREATE TABLE items (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) "
                + with("items", ", 'changelog-mode' = 'upsert'"));
        TableResult result = tables.executeSql("SELECT id, name FROM items");
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            rows.addAll(take(it, 2));
            // an update leaving an nvarchar(max) unchanged: its old value is not in the change table, and upsert needs none
            db.execute("UPDATE items SET id = 3 WHERE id = 1", "DELETE FROM items WHERE id = 2");
            rows.addAll(take(it, 3));
        } finally {
            result.getJobClient().orElseThrow().cancel();
        }
        assertThat(rows.subList(0, 2)).extracting(Row::getKind).containsOnly(RowKind.INSERT);
        // SQL Server may capture a key update as an update or as a delete and an insert: -D 1 and +I/+U 3 either way
        assertThat(rows.subList(2, 5)).extracting(r -> (r.getKind() == RowKind.DELETE ? "-" : "+") + r.getField("id"))
                .containsExactly("-1", "+3", "-2");
        assertThat(rows.get(3).getField("name")).isEqualTo("one");
    }

    @Test
    void lossyDeclaredTypesAreRefusedWhenTheJobIsPlanned() {
        db.execute("CREATE TABLE lossy (id INT PRIMARY KEY, small TINYINT, m MONEY, t DATETIME2(7), o DATETIMEOFFSET)");
        tables.executeSql("CREATE TABLE lossy (id INT, small TINYINT, m DECIMAL(18, 4), t TIMESTAMP(6), "
                + "o TIMESTAMP_LTZ(7)) " + with("lossy", ""));
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM lossy"))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("column small: declared TINYINT cannot hold the source type tinyint exactly")
                        .contains("(the default mapping is SMALLINT)")
                        .contains("column m: declared DECIMAL(18, 4) cannot hold the source type money exactly")
                        .contains("column t: declared TIMESTAMP(6) cannot hold the source type datetime2(7)")
                        .contains("column o: declared TIMESTAMP_LTZ(7) cannot hold the source type datetimeoffset(7)")
                        .doesNotContain(db.password()));
    }

    @Test
    void aWrongPasswordFailsPlanningWithoutShowingEitherPassword() {
        db.execute("CREATE TABLE t (id INT PRIMARY KEY)");
        String wrong = io.rustcdc.flink.testing.SecretChecks.randomPassword();
        tables.executeSql("CREATE TABLE t (id INT) " + with("t", "").replace("'password' = '" + db.password() + "'",
                "'password' = '" + wrong + "'"));
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM t"))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e)).contains(db.user())
                        .doesNotContain(wrong).doesNotContain(db.password()));
    }
}
