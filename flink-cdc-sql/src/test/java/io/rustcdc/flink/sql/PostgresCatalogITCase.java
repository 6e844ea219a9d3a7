package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.FlinkVersion;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.CollectionUtil;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code CREATE CATALOG ... WITH ('type' = 'rustcdc-postgres')} on a MiniCluster against real PostgreSQL:
 * listing by the patterns, each table's schema derived from the live catalogue, a query that snapshots and
 * streams with a hint, metadata through {@code CREATE TABLE ... LIKE}, and no literal password.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(180)
class PostgresCatalogITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private PostgresDatabase db;
    private StreamTableEnvironment tables;
    private Path passwordFile;

    @BeforeEach
    void setUp(PostgresDatabase db, @TempDir Path dir) throws Exception {
        this.db = db;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                Configuration.fromMap(Map.of("restart-strategy.type", "none")));
        env.setParallelism(1);
        env.enableCheckpointing(300);
        tables = StreamTableEnvironment.create(env);
        tables.getConfig().set("table.local-time-zone", "UTC");
        passwordFile = dir.resolve("pg-password");
        Files.writeString(passwordFile, db.replicationPassword());
    }

    private String catalogOptions(String extra) {
        return "'type' = 'rustcdc-postgres', 'hostname' = '" + db.host() + "', 'port' = '" + db.port()
                + "', 'username' = '" + db.replicationUser() + "', 'password.file' = '" + passwordFile
                + "', 'database-name' = '" + db.name() + "', 'tls.mode' = 'disable'" + extra;
    }

    private void createCatalog(String extra) {
        tables.executeSql("CREATE CATALOG pg WITH (" + catalogOptions(extra) + ")");
    }

    @Test
    void listsWhatThePatternsSelectWithSchemasDerivedFromTheCatalogue() throws Exception {
        db.execute("CREATE TYPE mood AS ENUM ('sad', 'ok')", "CREATE SCHEMA listed", "CREATE SCHEMA inventory",
                "CREATE TABLE listed.types (id bigint PRIMARY KEY, flag boolean NOT NULL, small smallint, i integer, "
                        + "o oid, amount numeric(12,4) NOT NULL, wide numeric(50,2), free numeric, r real, "
                        + "d double precision, t text, vc varchar(10), c char(3), j jsonb, u uuid, b bytea, "
                        + "day date, ts timestamp(3), tstz timestamptz, ints int[], "
                        + "texts text[], iv interval, ip inet, m mood)",
                "CREATE TABLE listed.times (id int PRIMARY KEY, tm time(3), tm6 time NOT NULL, t0 time(0), ts time[])",
                "CREATE TABLE listed.tmp_scratch (id int PRIMARY KEY)",
                "CREATE TABLE listed.keyless (note text)",
                "CREATE TABLE inventory.items (sku text, shelf int NOT NULL, PRIMARY KEY (sku, shelf))");
        // the other tests' tables are in public
        createCatalog(", 'table.exclude-list' = 'public.*;listed.tmp_*'");

        Catalog catalog = tables.getCatalog("pg").orElseThrow();
        assertThat(catalog.listDatabases()).containsExactly(db.name());
        assertThat(catalog.getDefaultDatabase()).isEqualTo(db.name());
        assertThat(catalog.listTables(db.name()))
                .containsExactly("inventory.items", "listed.keyless", "listed.times", "listed.types");
        assertThat(catalog.tableExists(new ObjectPath(db.name(), "listed.types"))).isTrue();
        assertThat(catalog.tableExists(new ObjectPath(db.name(), "listed.tmp_scratch"))).as("excluded").isFalse();
        assertThat(catalog.tableExists(new ObjectPath(db.name(), "listed.missing"))).isFalse();
        assertThat(catalog.tableExists(new ObjectPath(db.name(), "types"))).as("always schema.table").isFalse();
        assertThat(catalog.databaseExists("postgres")).isFalse();
        tables.executeSql("USE CATALOG pg");
        assertThat(rows("SHOW TABLES")).containsExactly("inventory.items", "listed.keyless", "listed.times", "listed.types");

        assertThat(columns(tables.from("pg." + db.name() + ".`listed.types`").getResolvedSchema())).containsExactly(
                "id BIGINT NOT NULL", "flag BOOLEAN NOT NULL", "small SMALLINT", "i INT", "o BIGINT",
                "amount DECIMAL(12, 4) NOT NULL", "wide STRING", "free STRING", "r FLOAT", "d DOUBLE", "t STRING",
                "vc STRING", "c STRING", "j STRING", "u STRING", "b BYTES", "day DATE", "ts TIMESTAMP(3)",
                "tstz TIMESTAMP_LTZ(6)", "ints ARRAY<INT>", "texts ARRAY<STRING>", "iv STRING", "ip STRING", "m STRING");
        assertThat(tables.from("`listed.types`").getResolvedSchema().getPrimaryKey().orElseThrow().getColumns())
                .containsExactly("id");
        ResolvedSchema items = tables.from("`inventory.items`").getResolvedSchema();
        assertThat(columns(items)).containsExactly("sku STRING NOT NULL", "shelf INT NOT NULL");
        assertThat(items.getPrimaryKey().orElseThrow().getColumns()).containsExactly("sku", "shelf");
        assertThat(tables.from("`listed.keyless`").getResolvedSchema().getPrimaryKey()).isEmpty();
        if (FlinkVersion.current().isNewerVersionThan(FlinkVersion.v1_20)) {
            assertThat(columns(tables.from("`listed.times`").getResolvedSchema())).containsExactly("id INT NOT NULL",
                    "tm TIME(3)", "tm6 TIME(3) NOT NULL", "t0 TIME(0)", "ts ARRAY<TIME(3)>");
        } else {
            // Flink 1.20 plans TIME at precision 0: the table is listed but refused, naming each column
            assertThatThrownBy(() -> tables.from("`listed.times`")).satisfies(e -> assertThat(
                    ExceptionUtils.stringifyException(e)).contains("listed.times", "'table.exclude-list'",
                    "column tm (time(3) without time zone): its values need TIME(3), and Flink 1.20 plans TIME at "
                            + "precision 0 only", "column tm6 (time without time zone)", "column ts (time without "
                            + "time zone[]): its values need ARRAY<TIME(3)>").doesNotContain("column t0", "column id"));
        }

        // the table's options: the catalog's, but its own, and the table's name
        assertThat(String.join("\n", rows("SHOW CREATE TABLE `listed.keyless`")))
                .contains("'connector' = 'rustcdc-postgres'", "'table-name' = 'listed.keyless'",
                        "'database-name' = '" + db.name() + "'", "'tls.mode' = 'disable'")
                .doesNotContain("table.exclude-list", "'type'");
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM `listed.tmp_scratch`"))
                .hasMessageContaining("listed.tmp_scratch");
        assertThatThrownBy(() -> tables.executeSql("CREATE TABLE pg." + db.name() + ".`listed.made` (id INT) "
                + "WITH ('connector' = 'datagen')"))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e)).contains("is read-only"));
    }

    @Test
    void aQuerySnapshotsAndStreamsWithItsHintAndLikeReachesTheMetadata() throws Exception {
        db.execute("CREATE TABLE hinted (id bigint PRIMARY KEY, amount numeric(10,2) NOT NULL, note text)",
                "ALTER TABLE hinted REPLICA IDENTITY FULL", "ALTER TABLE hinted OWNER TO " + db.replicationUser(),
                "INSERT INTO hinted VALUES (1, 12.50, 'one'), (2, 3.25, NULL)");
        createCatalog(", 'slot.create-if-missing' = 'true', 'publication.create-if-missing' = 'true'");
        String orders = "pg." + db.name() + ".`public.hinted`";

        TableResult result = tables.executeSql("SELECT * FROM " + orders
                + " /*+ OPTIONS('slot.name' = 'cat_hint', 'publication.name' = 'cat_hint') */");
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            rows.add(it.next());
            rows.add(it.next());
            db.execute("UPDATE hinted SET note = 'uno' WHERE id = 1");
            rows.add(it.next());
            rows.add(it.next());
        }
        assertThat(rows.subList(0, 2)).containsExactlyInAnyOrder(Row.ofKind(RowKind.INSERT, 1L, new BigDecimal("12.50"),
                "one"), Row.ofKind(RowKind.INSERT, 2L, new BigDecimal("3.25"), null));
        assertThat(rows.subList(2, 4)).containsExactly(Row.ofKind(RowKind.UPDATE_BEFORE, 1L, new BigDecimal("12.50"),
                "one"), Row.ofKind(RowKind.UPDATE_AFTER, 1L, new BigDecimal("12.50"), "uno"));
        assertThat(db.queryColumn("SELECT slot_name FROM pg_replication_slots")).contains("cat_hint");

        // metadata columns: a table of one's own LIKE the catalog's, which takes its columns and options
        tables.executeSql("CREATE TEMPORARY TABLE orders_meta (kind STRING METADATA FROM 'row_kind' VIRTUAL, "
                + "tbl STRING METADATA FROM 'table_name' VIRTUAL) WITH ('slot.name' = 'cat_like', "
                + "'publication.name' = 'cat_like', 'scan.startup.mode' = 'snapshot') LIKE " + orders);
        List<Row> meta = CollectionUtil.iteratorToList(tables.executeSql(
                "SELECT id, kind, tbl FROM orders_meta").collect());
        assertThat(meta).containsExactlyInAnyOrder(Row.of(1L, "+I", "hinted"), Row.of(2L, "+I", "hinted"));
    }

    @Test
    void aLiteralPasswordIsRefusedAndNoPasswordIsShown() throws Exception {
        String secret = db.replicationPassword();
        assertThatThrownBy(() -> tables.executeSql("CREATE CATALOG leaky WITH ('type' = 'rustcdc-postgres', "
                + "'hostname' = 'localhost', 'username' = 'u', 'password' = '" + secret + "', 'database-name' = 'd')"))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e))
                        .contains("does not take 'password'", "'password.env'", "'password.file'")
                        .doesNotContain(secret));
        assertThat(tables.listCatalogs()).doesNotContain("leaky");

        db.execute("CREATE TABLE shown (id bigint PRIMARY KEY)");
        createCatalog("");
        String shown = String.join("\n", rows("SHOW CREATE CATALOG pg"))
                + String.join("\n", rows("DESCRIBE CATALOG EXTENDED pg"))
                + String.join("\n", rows("SHOW CREATE TABLE pg." + db.name() + ".`public.shown`"));
        assertThat(shown).contains("'password.file'", passwordFile.toString(), "'table-name' = 'public.shown'")
                .doesNotContain(secret);
    }

    private List<String> rows(String sql) {
        return CollectionUtil.iteratorToList(tables.executeSql(sql).collect()).stream()
                .map(r -> r.getArity() == 1 ? String.valueOf(r.getField(0)) : r.toString()).collect(Collectors.toList());
    }

    private static List<String> columns(ResolvedSchema schema) {
        return schema.getColumns().stream().map(Column::toString).map(s -> s.replace("`", "")).collect(Collectors.toList());
    }
}
