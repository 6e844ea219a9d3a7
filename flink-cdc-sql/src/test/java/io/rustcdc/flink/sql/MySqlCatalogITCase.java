package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
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
 * {@code CREATE CATALOG ... WITH ('type' = 'rustcdc-mariadb')} on a MiniCluster against real MariaDB, and with
 * {@code 'rustcdc-mysql'} on Oracle MySQL where {@code -Drustcdc.mysql.flavor=mysql} starts one (the module's
 * {@code oracle-mysql} execution): each selected database a Flink database, each table's schema derived from the
 * live catalogue, a query that snapshots and streams with its {@code server-id} given by a hint.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(180)
class MySqlCatalogITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final boolean ORACLE = "mysql".equals(System.getProperty(MySqlServer.FLAVOR_PROPERTY));

    private MySqlDatabase db;
    private StreamTableEnvironment tables;
    private Path passwordFile;

    @BeforeEach
    void setUp(MySqlDatabase db, @TempDir Path dir) throws Exception {
        this.db = db;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                Configuration.fromMap(Map.of("restart-strategy.type", "none")));
        env.setParallelism(1);
        env.enableCheckpointing(300);
        tables = StreamTableEnvironment.create(env);
        tables.getConfig().set("table.local-time-zone", "UTC");
        passwordFile = dir.resolve("mysql-password");
        Files.writeString(passwordFile, db.cdcPassword());
    }

    private void createCatalog(String extra) {
        tables.executeSql("CREATE CATALOG my WITH ('type' = '" + (ORACLE ? "rustcdc-mysql" : "rustcdc-mariadb")
                + "', 'hostname' = '" + db.host() + "', 'port' = '" + db.port() + "', 'username' = '" + db.cdcUser()
                + "', 'password.file' = '" + passwordFile + "', 'default-database' = '" + db.name() + "'" + extra + ")");
    }

    @Test
    void eachSelectedDatabaseIsAFlinkDatabaseWithSchemasDerivedFromTheCatalogue() throws Exception {
        MySqlDatabase other = db.server().createDatabase("catalog_other");
        db.execute("CREATE TABLE types (id BIGINT UNSIGNED PRIMARY KEY, t TINYINT, flag TINYINT(1) NOT NULL, "
                + "s SMALLINT UNSIGNED, m MEDIUMINT, i INT NOT NULL, iu INT UNSIGNED, b BIGINT, "
                + "amount DECIMAL(12,4) NOT NULL, wide DECIMAL(65,30), f FLOAT, d DOUBLE, bit1 BIT(1), bits BIT(12), "
                + "c CHAR(3), vc VARCHAR(20), txt TEXT, bl BLOB, bin BINARY(4), state ENUM('new','paid'), "
                + "tags SET('a','b'), day DATE, dt DATETIME(6), ts TIMESTAMP(3) NULL, y YEAR)");
        db.execute("CREATE TABLE keyless (note VARCHAR(10))");
        other.execute("CREATE TABLE kept_items (sku VARCHAR(20), shelf INT, PRIMARY KEY (sku, shelf))",
                "CREATE TABLE dropped_items (id INT PRIMARY KEY)");
        // the patterns select this test's databases of the shared server, and of the other only kept_*
        createCatalog(", 'table.include-list' = '" + db.name() + ".*;" + other.name() + ".kept_*'");

        Catalog catalog = tables.getCatalog("my").orElseThrow();
        assertThat(catalog.listDatabases()).containsExactlyInAnyOrder(db.name(), other.name());
        assertThat(catalog.listTables(db.name())).containsExactly("keyless", "types");
        assertThat(catalog.listTables(other.name())).containsExactly("kept_items");
        assertThat(catalog.tableExists(new ObjectPath(other.name(), "dropped_items"))).as("not selected").isFalse();
        assertThat(catalog.tableExists(new ObjectPath(db.name(), "missing"))).isFalse();
        assertThat(catalog.databaseExists("mysql")).isFalse();
        tables.executeSql("USE CATALOG my");
        assertThat(CollectionUtil.iteratorToList(tables.executeSql("SHOW TABLES").collect()))
                .containsExactly(Row.of("keyless"), Row.of("types"));

        assertThat(columns(tables.from("types").getResolvedSchema())).containsExactly("id DECIMAL(20, 0) NOT NULL",
                "t TINYINT", "flag TINYINT NOT NULL", "s INT", "m INT", "i INT NOT NULL", "iu BIGINT", "b BIGINT",
                "amount DECIMAL(12, 4) NOT NULL", "wide STRING", "f FLOAT", "d DOUBLE", "bit1 BOOLEAN", "bits BYTES",
                "c STRING", "vc STRING", "txt STRING", "bl BYTES", "bin BYTES", "state STRING", "tags STRING",
                "day DATE", "dt TIMESTAMP(6)", "ts TIMESTAMP_LTZ(3)", "y SMALLINT");
        assertThat(tables.from("types").getResolvedSchema().getPrimaryKey().orElseThrow().getColumns())
                .containsExactly("id");
        ResolvedSchema items = tables.from("`" + other.name() + "`.kept_items").getResolvedSchema();
        assertThat(columns(items)).containsExactly("sku STRING NOT NULL", "shelf INT NOT NULL");
        assertThat(items.getPrimaryKey().orElseThrow().getColumns()).containsExactly("sku", "shelf");
        assertThat(tables.from("keyless").getResolvedSchema().getPrimaryKey()).isEmpty();
    }

    @Test
    void aQuerySnapshotsAndStreamsWithItsServerIdGivenByAHint() throws Exception {
        db.execute("CREATE TABLE orders (id INT PRIMARY KEY, amount DECIMAL(10,2) NOT NULL, note VARCHAR(10))",
                "INSERT INTO orders VALUES (1, 12.50, 'one'), (2, 3.25, NULL)");
        createCatalog("");
        String orders = "my.`" + db.name() + "`.orders";
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM " + orders))
                .satisfies(e -> assertThat(ExceptionUtils.stringifyException(e)).contains("server-id"));

        TableResult result = tables.executeSql("SELECT * FROM " + orders + " /*+ OPTIONS('server-id' = '7301') */");
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            rows.add(it.next());
            rows.add(it.next());
            db.execute("UPDATE orders SET note = 'uno' WHERE id = 1");
            rows.add(it.next());
            rows.add(it.next());
        }
        assertThat(rows.subList(0, 2)).containsExactlyInAnyOrder(Row.ofKind(RowKind.INSERT, 1, new BigDecimal("12.50"),
                "one"), Row.ofKind(RowKind.INSERT, 2, new BigDecimal("3.25"), null));
        assertThat(rows.subList(2, 4)).containsExactly(Row.ofKind(RowKind.UPDATE_BEFORE, 1, new BigDecimal("12.50"),
                "one"), Row.ofKind(RowKind.UPDATE_AFTER, 1, new BigDecimal("12.50"), "uno"));
    }

    private static List<String> columns(ResolvedSchema schema) {
        return schema.getColumns().stream().map(Column::toString).map(s -> s.replace("`", "")).collect(Collectors.toList());
    }
}
