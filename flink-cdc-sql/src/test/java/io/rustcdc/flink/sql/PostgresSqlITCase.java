package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.source.control.SnapshotControl;
import io.rustcdc.flink.source.control.TableReadout;
import io.rustcdc.flink.testing.Poll;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.configuration.Configuration;
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
import org.junit.jupiter.api.io.TempDir;

/** {@code 'connector' = 'rustcdc-postgres'} in Flink SQL, on a MiniCluster against real PostgreSQL. */
@ExtendWith(PostgresExtension.class)
@Timeout(300)
class PostgresSqlITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private PostgresDatabase db;
    private StreamTableEnvironment tables;

    @BeforeEach
    void setUp(PostgresDatabase db) {
        this.db = db;
        // no restarts, set on the environment itself: a job that fails must end, never retry while a test waits
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                Configuration.fromMap(Map.of("restart-strategy.type", "none")));
        env.setParallelism(2);
        env.enableCheckpointing(300);
        tables = StreamTableEnvironment.create(env);
        tables.getConfig().set("table.local-time-zone", "UTC");
    }

    private String with(String table, String slot, String extra) {
        return SqlTestTables.with(db, table, slot, ", 'scan.incremental.snapshot.chunk.size' = '50'" + extra);
    }

    @Test
    void rowsRowKindsAndMetadata() throws Exception {
        db.execute("CREATE TABLE orders (id bigint PRIMARY KEY, amount numeric(12,4) NOT NULL, placed_at timestamptz(6), "
                        + "local_at timestamp(3), note text, tags int[], big numeric(40,2))",
                "ALTER TABLE orders REPLICA IDENTITY FULL", "ALTER TABLE orders OWNER TO " + db.replicationUser(),
                "INSERT INTO orders VALUES (1, 12.5, '2024-03-30 23:30:00.123456+00', '2024-03-30 23:30:00.5', 'one', "
                        + "'{1,NULL}', 12345678901234567890123456789012345678.99)");
        tables.executeSql("CREATE TABLE orders (id BIGINT, amount DECIMAL(12,4) NOT NULL, placed_at TIMESTAMP_LTZ(6), "
                + "local_at TIMESTAMP(3), note STRING, tags ARRAY<INT>, big STRING, "
                + "db STRING METADATA FROM 'database_name' VIRTUAL, sch STRING METADATA FROM 'schema_name' VIRTUAL, "
                + "tbl STRING METADATA FROM 'table_name' VIRTUAL, op_ts TIMESTAMP_LTZ(3) METADATA FROM 'op_ts' VIRTUAL, "
                + "kind STRING METADATA FROM 'row_kind' VIRTUAL, shape_id STRING METADATA FROM 'shape_id' VIRTUAL, "
                + "shape STRING METADATA FROM 'shape' VIRTUAL, pos STRING METADATA FROM 'source_position' VIRTUAL, "
                + "txid STRING METADATA FROM 'transaction_id' VIRTUAL, "
                + "PRIMARY KEY (id) NOT ENFORCED) "
                + with("public.orders", "sql_rows", ", 'scan.transaction-boundaries' = 'preserve'"));
        TableResult result = tables.executeSql("SELECT * FROM orders");
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            rows.add(it.next());
            db.execute("UPDATE orders SET note = 'uno' WHERE id = 1", "DELETE FROM orders WHERE id = 1");
            for (int i = 0; i < 3; i++) {
                rows.add(it.next());
            }
        }
        Row read = rows.get(0);
        assertThat(read.getKind()).isEqualTo(RowKind.INSERT);
        assertThat(read.getField("id")).isEqualTo(1L);
        assertThat(read.getField("amount")).isEqualTo(new BigDecimal("12.5000"));
        assertThat(read.getField("placed_at")).isEqualTo(Instant.parse("2024-03-30T23:30:00.123456Z"));
        assertThat(read.getField("local_at")).isEqualTo(LocalDateTime.of(2024, 3, 30, 23, 30, 0, 500_000_000));
        assertThat((Integer[]) read.getField("tags")).containsExactly(1, null);
        assertThat(read.getField("big")).isEqualTo("12345678901234567890123456789012345678.99");
        assertThat(read.getField("db")).isEqualTo(db.name());
        assertThat(read.getField("sch")).isEqualTo("public");
        assertThat(read.getField("tbl")).isEqualTo("orders");
        assertThat(read.getField("op_ts")).isEqualTo(Instant.EPOCH);
        assertThat(read.getField("kind")).isEqualTo("+I");
        assertThat((String) read.getField("shape_id")).hasSize(64);
        assertThat((String) read.getField("shape")).contains("\"data_type\":\"numeric(12,4)\"");
        assertThat(read.getField("pos")).isNull();
        assertThat(read.getField("txid")).isNull();
        assertThat(rows.subList(1, 4)).extracting(Row::getKind)
                .containsExactly(RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE);
        assertThat(rows.get(1).getField("note")).isEqualTo("one");
        assertThat(rows.get(2).getField("note")).isEqualTo("uno");
        assertThat(rows.get(2).getField("kind")).isEqualTo("+U");
        assertThat((Instant) rows.get(2).getField("op_ts")).isAfter(Instant.now().minusSeconds(60));
        assertThat((String) rows.get(2).getField("pos")).matches("[0-9A-F]+/[0-9A-F]+(#\\d+)?");
        assertThat((String) rows.get(1).getField("txid")).as("the update's xid").matches("\\d+")
                .isEqualTo(rows.get(2).getField("txid")).isNotEqualTo(rows.get(3).getField("txid"));
        assertThat((String) rows.get(3).getField("txid")).as("the delete's xid").matches("\\d+");
    }

    /**
     * {@code 'scan.snapshot.filter'}: the snapshot reads, in chunks, only the rows the condition selects;
     * the stream goes on with every change, of rows outside the filter too.
     */
    @Test
    void aSnapshotFilterReadsOnlyTheRowsItSelectsAndTheStreamEveryChange() throws Exception {
        db.execute("CREATE TABLE regions (id int PRIMARY KEY, region text NOT NULL)",
                "ALTER TABLE regions REPLICA IDENTITY FULL", "ALTER TABLE regions OWNER TO " + db.replicationUser(),
                "INSERT INTO regions SELECT g, CASE WHEN g % 3 = 0 THEN 'EU' ELSE 'US' END FROM generate_series(1, 300) g");
        tables.executeSql("CREATE TABLE regions (id INT, region STRING, PRIMARY KEY (id) NOT ENFORCED) "
                + with("public.regions", "sql_filter", ", 'changelog-mode' = 'upsert', "
                        + "'scan.snapshot.filter' = 'region = ''EU'''"));
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tables.executeSql("SELECT * FROM regions").collect()) {
            for (int i = 0; i < 100; i++) {
                rows.add(it.next());
            }
            db.execute("INSERT INTO regions VALUES (1000, 'US')");
            rows.add(it.next());
        }
        assertThat(rows.subList(0, 100)).allSatisfy(r -> {
            assertThat(r.getKind()).isEqualTo(RowKind.INSERT);
            assertThat(r.getField("region")).isEqualTo("EU");
        });
        assertThat(rows.subList(0, 100)).extracting(r -> (Integer) r.getField("id")).doesNotHaveDuplicates()
                .allMatch(id -> id % 3 == 0);
        assertThat(rows.get(100).getKind()).isEqualTo(RowKind.INSERT);
        assertThat(rows.get(100).getField("id")).isEqualTo(1000);
        assertThat(rows.get(100).getField("region")).isEqualTo("US");
    }

    /**
     * {@code 'scan.control.path'}: the snapshot control of a SQL table's running job (docs/operations.md). A
     * request with a row filter reads the table's selected rows again while the stream goes on; the state
     * readout shows the table captured again with the filter it was read with.
     */
    @Test
    void aRequestToTheSnapshotControlReadsATableAgainWhileTheStreamGoesOn(@TempDir Path control) throws Exception {
        db.execute("CREATE TABLE stock (id int PRIMARY KEY, qty int NOT NULL)",
                "ALTER TABLE stock REPLICA IDENTITY FULL", "ALTER TABLE stock OWNER TO " + db.replicationUser(),
                "INSERT INTO stock SELECT g, g * 10 FROM generate_series(1, 120) g");
        String path = control.toUri().toString();
        tables.executeSql("CREATE TABLE stock (id INT, qty INT, kind STRING METADATA FROM 'row_kind' VIRTUAL, "
                + "PRIMARY KEY (id) NOT ENFORCED) " + with("public.stock", "sql_control",
                        ", 'scan.control.path' = '" + path + "', 'scan.control.interval' = '300 ms'"));
        SnapshotControl client = SnapshotControl.at(path);
        List<Row> first = new ArrayList<>();
        List<Row> again = new ArrayList<>();
        try (CloseableIterator<Row> it = tables.executeSql("SELECT * FROM stock").collect()) {
            for (int i = 0; i < 120; i++) {
                first.add(it.next());
            }
            Poll.until("the first snapshot in the state readout", Duration.ofSeconds(60), () -> client.state().stream()
                    .anyMatch(t -> t.table().equals("public.stock") && t.status().equals(TableReadout.CAPTURED)));
            String id = client.request(Map.of("public.stock", "id <= 30"), "public.stock");
            assertThat(client.awaitResult(id, Duration.ofSeconds(60)).applied()).isTrue();
            db.execute("UPDATE stock SET qty = -1 WHERE id = 100");
            while (again.size() < 32) { // the 30 rows read again and the update, in any order
                again.add(it.next());
            }
            Poll.until("the request's snapshot done", Duration.ofSeconds(60), () -> client.state().stream()
                    .anyMatch(t -> t.table().equals("public.stock") && t.status().equals(TableReadout.CAPTURED)
                            && t.filter().equals("id <= 30")));
        }
        assertThat(first).extracting(r -> (Integer) r.getField("id")).doesNotHaveDuplicates().hasSize(120);
        assertThat(again.stream().filter(r -> r.getKind() == RowKind.INSERT).map(r -> (Integer) r.getField("id")))
                .as("the rows the request's filter selects, read again").containsExactlyInAnyOrderElementsOf(
                        java.util.stream.IntStream.rangeClosed(1, 30).boxed().toList());
        assertThat(again).filteredOn(r -> r.getKind() == RowKind.UPDATE_AFTER).singleElement()
                .satisfies(r -> assertThat(r.getField("qty")).isEqualTo(-1));
    }

    @Test
    void aggregateOverConcurrentWritesMatchesTheDatabaseInBothChangelogModes() throws Exception {
        db.execute("CREATE TABLE sales (id int PRIMARY KEY, amount numeric(10,2) NOT NULL)",
                "ALTER TABLE sales REPLICA IDENTITY FULL", "ALTER TABLE sales OWNER TO " + db.replicationUser(),
                "INSERT INTO sales SELECT g, g * 1.25 FROM generate_series(1, 500) g");
        // chunked by a bare column, as Flink CDC's tables name it
        tables.executeSql("CREATE TABLE sales_all (id INT, amount DECIMAL(10,2), PRIMARY KEY (id) NOT ENFORCED) "
                + with("public.sales", "sql_all", ", 'scan.incremental.snapshot.chunk.key-column' = 'id', "
                        + "'scan.incremental.snapshot.chunk.size' = '64'"));
        tables.executeSql("CREATE TABLE sales_upsert (id INT, amount DECIMAL(10,2), PRIMARY KEY (id) NOT ENFORCED) "
                + with("public.sales", "sql_upsert", ", 'changelog-mode' = 'upsert'"));
        for (String table : List.of("sales_all", "sales_upsert")) {
            BlockingQueue<Row> updates = new LinkedBlockingQueue<>();
            TableResult result = tables.executeSql("SELECT COUNT(*), SUM(amount) FROM " + table);
            CloseableIterator<Row> it = result.collect();
            Thread reader = new Thread(() -> {
                try {
                    it.forEachRemaining(updates::add);
                } catch (RuntimeException closed) {
                    // the test closed the result
                }
            });
            reader.start();
            Thread writer = new Thread(() -> {
                for (int i = 0; i < 150; i++) {
                    int id = 1 + (i * 7) % 700;
                    db.execute("INSERT INTO sales VALUES (" + id + ", " + i + ".5) ON CONFLICT (id) DO UPDATE SET amount = "
                            + "sales.amount + 1", "DELETE FROM sales WHERE id = " + (1 + (i * 13) % 700));
                }
            });
            writer.start();
            writer.join();
            String expected = db.queryValue("SELECT count(*) || ',' || sum(amount) FROM sales");
            Row[] latest = new Row[1];
            Poll.until(table + " to match the database (" + expected + ")", Duration.ofSeconds(90), () -> {
                Row r;
                while ((r = updates.poll(50, TimeUnit.MILLISECONDS)) != null) {
                    if (r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER) {
                        latest[0] = r;
                    }
                }
                return latest[0] != null && (latest[0].getField(0) + "," + latest[0].getField(1)).equals(expected);
            });
            it.close();
            reader.join(30_000);
        }
    }

    /**
     * Three shard tables as one SQL table, told apart by table_name, under a random workload while the
     * snapshot and the stream run; a fourth shard added to the publication later is snapshotted and
     * streamed too; shard_10 and shard_x_1 do not match shard_? and stay out.
     */
    @Test
    void shardTablesMatchingAPatternAreOneTableToldApartByTableName() throws Exception {
        try (ShardWorkload workload = new ShardWorkload(db, "PostgresSqlITCase")) {
            shards(workload);
        }
    }

    private void shards(ShardWorkload workload) throws Exception {
        for (String shard : List.of("shard_1", "shard_2", "shard_3", "shard_10")) {
            db.execute("CREATE TABLE " + shard + " (id int PRIMARY KEY, qty int NOT NULL, note text)",
                    "ALTER TABLE " + shard + " REPLICA IDENTITY FULL", "ALTER TABLE " + shard + " OWNER TO "
                            + db.replicationUser());
        }
        db.execute("INSERT INTO shard_10 VALUES (1, 1, 'not a shard_?')");
        for (String shard : List.of("shard_1", "shard_2", "shard_3")) {
            workload.add(shard, 25);
        }
        tables.executeSql("CREATE TABLE shards (id INT, qty INT NOT NULL, note STRING, "
                + "tbl STRING METADATA FROM 'table_name' VIRTUAL) " + SqlTestTables.with(db, "public.shard_?", "sql_shards",
                        ", 'scan.incremental.snapshot.chunk.size' = '10', 'scan.table-discovery.interval' = '1 s'"));
        try (ShardWorkload.Changelog changelog = new ShardWorkload.Changelog(tables.executeSql("SELECT * FROM shards"))) {
            workload.stepUntil(changelog::anyRow, 100); // writes while the job starts and snapshots
            for (int i = 0; i < 40; i++) {
                workload.step();
            }
            db.execute("CREATE TABLE shard_4 (id int PRIMARY KEY, qty int NOT NULL, note text)",
                    "ALTER TABLE shard_4 REPLICA IDENTITY FULL", "ALTER TABLE shard_4 OWNER TO " + db.replicationUser(),
                    "ALTER PUBLICATION sql_shards ADD TABLE shard_4");
            workload.add("shard_4", 10);
            for (int i = 0; i < 40; i++) {
                workload.step();
            }
            changelog.awaitEqual(workload, Duration.ofSeconds(60));
        }
    }

    @Test
    void anAddedColumnIsIgnoredAndADroppedDeclaredColumnFailsTheJob() throws Exception {
        db.execute("CREATE TABLE evolving (id int PRIMARY KEY, name text, score int)",
                "ALTER TABLE evolving REPLICA IDENTITY FULL", "ALTER TABLE evolving OWNER TO " + db.replicationUser(),
                "INSERT INTO evolving VALUES (1, 'a', 10)");
        tables.executeSql("CREATE TABLE evolving (id INT, name STRING, score INT, PRIMARY KEY (id) NOT ENFORCED) "
                + with("public.evolving", "sql_evolving", ""));
        TableResult result = tables.executeSql("SELECT id, name, score FROM evolving");
        try (CloseableIterator<Row> it = result.collect()) {
            assertThat(it.next().getField("name")).isEqualTo("a");
            db.execute("ALTER TABLE evolving ADD COLUMN extra text", "INSERT INTO evolving VALUES (2, 'b', 20, 'x')");
            Row added = it.next();
            assertThat(added.getField("id")).isEqualTo(2);
            assertThat(added.getArity()).as("the new column is not read until declared").isEqualTo(3);
            db.execute("ALTER TABLE evolving DROP COLUMN score", "INSERT INTO evolving VALUES (3, 'c', 'y')");
            assertThatThrownBy(() -> {
                while (it.hasNext()) {
                    it.next();
                }
            }).satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                    .contains("The table declared for public.evolving does not fit the source any more")
                    .contains("column score (declared INT, source type integer) was removed"));
        }
    }

    @Test
    void schemaChangesAdditiveOnlyTakesANullableColumnAndFailsOnATypeChangeNamingBothTypes() throws Exception {
        db.execute("CREATE TABLE guarded (id int PRIMARY KEY, note varchar(10))", "ALTER TABLE guarded REPLICA IDENTITY FULL",
                "ALTER TABLE guarded OWNER TO " + db.replicationUser(), "INSERT INTO guarded VALUES (1, 'a')");
        tables.executeSql("CREATE TABLE guarded (id INT, PRIMARY KEY (id) NOT ENFORCED) "
                + with("public.guarded", "sql_guarded", ", 'schema-changes' = 'additive-only'"));
        try (CloseableIterator<Row> it = tables.executeSql("SELECT * FROM guarded").collect()) {
            assertThat(it.next().getField("id")).isEqualTo(1);
            db.execute("ALTER TABLE guarded ADD COLUMN extra text", "INSERT INTO guarded VALUES (2, 'b', 'x')");
            assertThat(it.next().getField("id")).isEqualTo(2);
            // not a declared column, but additive-only refuses every change that is not additive
            db.execute("ALTER TABLE guarded ALTER COLUMN note TYPE varchar(20)", "INSERT INTO guarded VALUES (3, 'c', 'y')");
            assertThatThrownBy(() -> {
                while (it.hasNext()) {
                    it.next();
                }
            }).satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                    .contains("Table public.guarded changed at the source at ")
                    .contains("column_type_changed note character varying(10) NULL -> note character varying(20) NULL")
                    .contains("'schema-changes' = 'additive-only' refuses"));
        }
    }

    /**
     * ALTER COLUMN TYPE numeric(10,1) rounds the stored numeric(10,2) values with no row change in the WAL: the job
     * fails at the change, naming both types, instead of going on with the old values downstream (found by an
     * adversarial probe); varchar(10) to varchar(20) before it keeps every value and goes on.
     */
    @Test
    void aTypeChangeThatMayRewriteStoredValuesFailsAtTheChange() throws Exception {
        db.execute("CREATE TABLE rw (id int PRIMARY KEY, n numeric(10,2), note varchar(10))",
                "ALTER TABLE rw REPLICA IDENTITY FULL", "ALTER TABLE rw OWNER TO " + db.replicationUser(),
                "INSERT INTO rw VALUES (1, 1.25, 'a')");
        tables.executeSql("CREATE TABLE rw (id INT, n STRING, note STRING, PRIMARY KEY (id) NOT ENFORCED) "
                + with("public.rw", "sql_rw", ""));
        try (CloseableIterator<Row> it = tables.executeSql("SELECT * FROM rw").collect()) {
            assertThat(it.next().getField("n")).isEqualTo("1.25");
            db.execute("ALTER TABLE rw ALTER COLUMN note TYPE varchar(20)", "INSERT INTO rw VALUES (2, 2.5, 'b')");
            assertThat(it.next().getField("id")).as("a wider varchar goes on").isEqualTo(2);
            db.execute("ALTER TABLE rw ALTER COLUMN n TYPE numeric(10,1)", "INSERT INTO rw VALUES (3, 3.5, 'c')");
            assertThatThrownBy(() -> {
                while (it.hasNext()) {
                    it.next();
                }
            }).satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                    .contains("does not fit the source any more")
                    .contains("column n (declared ").contains("changed its source type from numeric(10,2) to "
                            + "numeric(10,1), which may have rewritten its stored values"));
        }
        assertThat(db.queryValue("SELECT n::text FROM rw WHERE id = 1")).isEqualTo("1.3");
    }

    @Test
    void aDeclaredColumnRetypedAtTheSourceFailsAtTheNextRow() throws Exception {
        db.execute("CREATE TABLE retyped (id int PRIMARY KEY, score int)", "ALTER TABLE retyped REPLICA IDENTITY FULL",
                "ALTER TABLE retyped OWNER TO " + db.replicationUser(), "INSERT INTO retyped VALUES (1, 10)");
        tables.executeSql("CREATE TABLE retyped (id INT, score INT, PRIMARY KEY (id) NOT ENFORCED) "
                + with("public.retyped", "sql_retyped", ""));
        try (CloseableIterator<Row> it = tables.executeSql("SELECT * FROM retyped").collect()) {
            assertThat(it.next().getField("score")).isEqualTo(10);
            db.execute("ALTER TABLE retyped ALTER COLUMN score TYPE bigint", "INSERT INTO retyped VALUES (2, 20)");
            assertThatThrownBy(() -> {
                while (it.hasNext()) {
                    it.next();
                }
            }).satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                    .contains("does not fit the source any more")
                    .contains("column score: declared INT cannot hold the source type bigint exactly"));
        }
    }

    @Test
    void aDeclaredSchemaThatDoesNotFitFailsWithEveryProblemInOneMessage() {
        db.execute("CREATE TABLE IF NOT EXISTS accounts (id int PRIMARY KEY, balance numeric(12,2), owner text NOT NULL, "
                + "opened date)", "ALTER TABLE accounts OWNER TO " + db.replicationUser());
        tables.executeSql("CREATE TABLE bad (id INT, balance DECIMAL(10,2), owner STRING, opened DATE NOT NULL, "
                + "missing STRING, PRIMARY KEY (owner) NOT ENFORCED) " + with("public.accounts", "sql_bad", ""));
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM bad"))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("The table declared for public.accounts does not fit the source when the job is planned")
                        .contains("column balance: declared DECIMAL(10, 2) cannot hold the source type numeric(12,2)")
                        .contains("the default mapping is DECIMAL(12, 2)")
                        .contains("column opened is declared NOT NULL, but the source column date is nullable")
                        .contains("column missing STRING does not exist in the source table")
                        .contains("the declared PRIMARY KEY [owner] differs from the source's [id]"));
    }

    @Test
    void unknownAndMissingOptionsAreNamed() {
        tables.executeSql("CREATE TABLE typo (id INT) WITH ('connector' = 'rustcdc-postgres', 'hostname' = 'x', "
                + "'username' = 'u', 'password' = 'p', 'database-name' = 'd', 'table-name' = 't', 'slot.nmae' = 's')");
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM typo"))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e)).contains("Unsupported options")
                        .contains("slot.nmae").contains("slot.name"));
        tables.executeSql("CREATE TABLE incomplete (id INT) WITH ('connector' = 'rustcdc-postgres', 'hostname' = 'x', "
                + "'username' = 'u', 'password' = 'p', 'table-name' = 't')");
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM incomplete"))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e)).contains("Missing required options")
                        .contains("database-name"));
        tables.executeSql("CREATE TABLE badmode (id INT) "
                + with("public.accounts", "sql_mode", ", 'changelog-mode' = 'append'"));
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM badmode"))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("Option 'changelog-mode' is 'all' or 'upsert', not 'append'")
                        .doesNotContain(db.replicationPassword()));
    }

}
