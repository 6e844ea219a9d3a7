package io.rustcdc.flink.sql;

import static io.rustcdc.flink.testing.SecretChecks.causeMessages;
import static io.rustcdc.flink.testing.SecretChecks.randomPassword;
import static io.rustcdc.flink.testing.SecretChecks.serializedText;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.sqlserver.types.SqlServerColumn;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.FlinkVersion;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code 'connector' = 'rustcdc-sqlserver'} planned through the Table API without a server: every
 * option error names its option before anything connects; an unreachable server fails with the host
 * and no password; and, with the table described as the connector's catalogue would
 * ({@link DescribedSqlServerTableFactory}), the declared schema is checked by SQL Server's type mapping,
 * the metadata columns and changelog modes are those documented, and the password is in no plan, job
 * graph or message.
 */
@Timeout(120)
class SqlServerTableFactoryTest {
    private static final String PASSWORD = randomPassword();
    /** Nothing listens on port 1 of the loopback: a connection is refused at once. */
    private static final String UNREACHABLE = "'hostname' = '127.0.0.1', 'port' = '1', 'connect.max-retries' = '0', "
            + "'connect.timeout' = '5 s'";

    private static final String SCAN = "TableSourceScan(table=[[default_catalog, default_database, ";

    private StreamExecutionEnvironment env;
    private StreamTableEnvironment tables;
    private int planned;

    @BeforeEach
    void setUp() {
        env = StreamExecutionEnvironment.getExecutionEnvironment(Configuration.fromMap(Map.of()));
        tables = StreamTableEnvironment.create(env);
        DescribedSqlServerTableFactory.columns = List.of(column("id", "int", 4, 10, 0, false),
                column("amount", "money", 8, 19, 4, true), column("note", "nvarchar", -1, 0, 0, true));
        DescribedSqlServerTableFactory.primaryKey = List.of("id");
        DescribedSqlServerTableFactory.described = null;
        DescribedSqlServerTableFactory.discovered = List.of();
        DescribedSqlServerTableFactory.columnsOf = Map.of();
    }

    private static SqlServerColumn column(String name, String type, int maxLength, int precision, int scale,
            boolean nullable) {
        return SqlServerColumn.of("dbo.orders", name, type, maxLength, precision, scale, nullable);
    }

    /** The options of a table {@code dbo.orders} in {@code shop}, with a literal password, then {@code extra}. */
    private static String with(String connector, String connection, String extra) {
        return " WITH ('connector' = '" + connector + "', " + connection + ", 'username' = 'cdc', 'password' = '"
                + PASSWORD + "', 'database-name' = 'shop', 'table-name' = 'orders'" + extra + ")";
    }

    private static String real(String extra) {
        return with("rustcdc-sqlserver", UNREACHABLE, extra);
    }

    private static String described(String extra) {
        return with("rustcdc-sqlserver-described", "'hostname' = 'db.internal'", extra);
    }

    /** The error planning {@code SELECT * FROM orders} fails with, after checking no password is in it. */
    private Throwable planningError(String columns, String options) {
        String name = "t" + (++planned); // a Flink table of its own each time, for the same source table
        tables.executeSql("CREATE TABLE " + name + " (" + columns + ")" + options);
        Throwable e = catchThrowable(() -> tables.explainSql("SELECT * FROM " + name));
        assertThat(e).as("planning fails").isNotNull();
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        assertThat(trace.toString()).doesNotContain(PASSWORD);
        return e;
    }

    private static String messages(Throwable e) {
        return String.join("\n", causeMessages(e));
    }

    @Test
    void aMissingRequiredOptionIsNamed() {
        tables.executeSql("CREATE TABLE orders (id INT) WITH ('connector' = 'rustcdc-sqlserver', 'hostname' = 'db', "
                + "'username' = 'cdc', 'password' = '" + PASSWORD + "', 'table-name' = 'orders')");
        Throwable e = catchThrowable(() -> tables.explainSql("SELECT * FROM orders"));
        assertThat(messages(e)).contains("database-name").doesNotContain(PASSWORD);
    }

    @Test
    void anUnknownOptionIsNamed() {
        assertThat(messages(planningError("id INT", real(", 'slot.name' = 'orders'")))).contains("slot.name");
    }

    @Test
    void malformedValuesAreNamedWithTheirOption() {
        assertThat(messages(planningError("id INT", real(", 'changelog-mode' = 'retract'"))))
                .contains("'changelog-mode' is 'all' or 'upsert', not 'retract'");
        assertThat(messages(planningError("id INT", real(", 'stream.poll-interval' = '2 min'"))))
                .contains("'stream.poll-interval' must be 1 ms to 60 s");
        assertThat(messages(planningError("id INT", real(", 'stream.max-events-per-poll' = '1'"))))
                .contains("'stream.max-events-per-poll' must be 2 to 100000");
        assertThat(messages(planningError("id INT", real(", 'cdc.schema' = ' '")))).contains("'cdc.schema'");
        assertThat(messages(planningError("id INT", real(", 'capture-truncate-events' = 'true'"))))
                .contains("'capture-truncate-events' = true is refused: SQL Server refuses TRUNCATE TABLE");
        assertThat(messages(planningError("id INT", real(", 'server-time-zone' = 'Europe/Berlin'"))))
                .contains("'server-time-zone' = 'Europe/Berlin' has daylight saving time");
        assertThat(messages(planningError("id INT", real(", 'stream.metrics-interval' = '100 ms'"))))
                .contains("'stream.metrics-interval' must be 1 s to 10 min");
        assertThat(messages(planningError("id INT", real(", 'scan.startup.mode' = 'specific-offset', "
                + "'scan.startup.specific-offset' = '0/16B3748'")))).contains("Not a SQL Server position: '0/16B3748'");
        assertThat(messages(planningError("id INT", real(", 'tls.mode' = 'verify-ca', 'tls.root-cert' = '/etc/ssl/ca.pem'"))))
                .contains("'tls.mode' = verify-ca is not supported by the SQL Server connector");
    }

    @Test
    void flinkCdcNamesThatMeanOursAreAcceptedAndOtherValuesRefused() {
        assertThat(messages(planningError("id INT", real(", 'scan.incremental.snapshot.enabled' = 'true'"))))
                .contains("Could not connect to SQL Server at 127.0.0.1:1"); // accepted: planning goes on
        assertThat(messages(planningError("id INT", real(", 'scan.incremental.snapshot.enabled' = 'false'"))))
                .contains("Option 'scan.incremental.snapshot.enabled' (Flink CDC's name) is 'false': "
                        + "rustcdc-sqlserver always snapshots in chunks");
        assertThat(messages(planningError("id INT", real(", 'decoding.plugin.name' = 'pgoutput'"))))
                .contains("decoding.plugin.name"); // PostgreSQL's only
    }

    @Test
    void aSnapshotRowFilterIsAnOptionOfEverySqlTable() {
        String upsert = ", 'changelog-mode' = 'upsert', ";
        assertThat(messages(planningError("id INT, PRIMARY KEY (id) NOT ENFORCED",
                real(upsert + "'scan.snapshot.filter' = 'region = N''EU'''"))))
                .contains("Could not connect to SQL Server at 127.0.0.1:1"); // accepted: planning goes on
        assertThat(messages(planningError("id INT", described(", 'scan.snapshot.filter' = ' '"))))
                .contains("'scan.snapshot.filter' is blank");
        // with every change as -U and -D too, a consumer would take away rows the filtered snapshot never gave it
        assertThat(messages(planningError("id INT", real(", 'scan.snapshot.filter' = 'region = N''EU'''"))))
                .contains("has 'scan.snapshot.filter' with 'changelog-mode' = 'all'")
                .contains("Use 'changelog-mode' = 'upsert' with a PRIMARY KEY");
    }

    @Test
    void anUnreachableServerFailsNamingTheHostWithoutThePassword() {
        String messages = messages(planningError("id INT", real("")));
        assertThat(messages).contains("Could not connect to SQL Server at 127.0.0.1:1, database 'shop', as 'cdc'")
                .doesNotContain(PASSWORD);
    }

    @Test
    void upsertNeedsAPrimaryKey() {
        assertThat(messages(planningError("id INT", real(", 'changelog-mode' = 'upsert'"))))
                .contains("'changelog-mode' = 'upsert' needs a PRIMARY KEY");
    }

    /** Without the server's offset there are no commit times: op_ts is refused by name, before any connection. */
    @Test
    void opTsNeedsTheServersOffsetAndIsRefusedWithoutItBeforeConnecting() {
        assertThat(messages(planningError("id INT, op_ts TIMESTAMP_LTZ(3) METADATA VIRTUAL", real(""))))
                .contains("Column op_ts of default_catalog.default_database.t1 reads metadata 'op_ts', which "
                        + "'rustcdc-sqlserver' supplies only with 'server-time-zone'")
                .contains("or remove the column").doesNotContain("Could not connect");
        tables.executeSql("CREATE TABLE orders (id INT, op_ts TIMESTAMP_LTZ(3) METADATA VIRTUAL, "
                + "tx STRING METADATA FROM 'transaction_id' VIRTUAL)" + described(", 'server-time-zone' = 'UTC'"));
        assertThat(tables.explainSql("SELECT * FROM orders")).contains(SCAN);
    }

    @Test
    void theTransactionIdIsRead() {
        tables.executeSql("CREATE TABLE orders (id INT, tx STRING METADATA FROM 'transaction_id' VIRTUAL)"
                + described(""));
        assertThat(tables.explainSql("SELECT * FROM orders")).contains(SCAN);
    }

    @Test
    void theOtherMetadataColumnsAreRead() {
        tables.executeSql("CREATE TABLE orders (id INT, db STRING METADATA FROM 'database_name' VIRTUAL, "
                + "s STRING METADATA FROM 'schema_name' VIRTUAL, t STRING METADATA FROM 'table_name' VIRTUAL, "
                + "k STRING METADATA FROM 'row_kind' VIRTUAL, shape_id STRING METADATA VIRTUAL, "
                + "shape STRING METADATA VIRTUAL, pos STRING METADATA FROM 'source_position' VIRTUAL)" + described(""));
        assertThat(tables.explainSql("SELECT * FROM orders")).contains(SCAN);
    }

    @Test
    void aPatternReadsEveryMatchingTableAndEachMustFitNamingTableAndColumn() {
        TableId one = TableId.of("shop", "dbo", "orders_1");
        TableId two = TableId.of("shop", "dbo", "orders_2");
        DescribedSqlServerTableFactory.discovered = List.of(one, two, TableId.of("shop", "dbo", "orders"),
                TableId.of("shop", "sales", "orders_3"), TableId.of("shop", "dbo", "ORDERS_4"));
        String shards = "'database-name' = 'shop', 'table-name' = 'orders_*')";
        tables.executeSql("CREATE TABLE shards (id INT, amount DECIMAL(19, 4), t STRING METADATA FROM 'table_name' "
                + "VIRTUAL, s STRING METADATA FROM 'schema_name' VIRTUAL, db STRING METADATA FROM 'database_name' VIRTUAL)"
                + described("").replace("'database-name' = 'shop', 'table-name' = 'orders')", shards));
        assertThat(tables.explainSql("SELECT * FROM shards")).contains(SCAN);
        assertThat(DescribedSqlServerTableFactory.described).as("the last one matched: ORDERS_4, case-insensitively")
                .isEqualTo(TableId.of("shop", "dbo", "ORDERS_4"));

        DescribedSqlServerTableFactory.columnsOf = Map.of(two, List.of(column("id", "bigint", 8, 19, 0, false),
                column("amount", "money", 8, 19, 4, true)));
        String messages = messages(planningError("id INT, amount DECIMAL(19, 4)",
                described("").replace("'database-name' = 'shop', 'table-name' = 'orders')", shards)));
        assertThat(messages).contains("The table declared for 'dbo.orders_*' does not fit every source table it "
                        + "matches when the job is planned (dbo.orders_1, dbo.orders_2, dbo.ORDERS_4)")
                .contains("table dbo.orders_2: column id: declared INT cannot hold the source type bigint exactly")
                .doesNotContain("table dbo.orders_1:");

        DescribedSqlServerTableFactory.discovered = List.of(TableId.of("shop", "dbo", "orders"));
        assertThat(messages(planningError("id INT", described("").replace("'table-name' = 'orders'",
                "'table-name' = 'orders_.*'")))).contains("No source table matches 'orders_.*' when the job is planned")
                .contains("write orders_* for Flink CDC's orders_.*");
    }

    @Test
    void upsertOverAPatternNeedsTheUsersWordThatKeysAreUniqueAcrossTables() {
        DescribedSqlServerTableFactory.discovered = List.of(TableId.of("shop", "dbo", "orders_1"));
        String upsert = described(", 'changelog-mode' = 'upsert'").replace("'table-name' = 'orders'",
                "'table-name' = 'orders_?'");
        assertThat(messages(planningError("id INT NOT NULL, PRIMARY KEY (id) NOT ENFORCED", upsert)))
                .contains("keyed by its PRIMARY KEY [id] alone (Flink allows no metadata column such as table_name in "
                        + "a PRIMARY KEY)").contains("'upsert.key-unique-across-tables' = 'true'");
        tables.executeSql("CREATE TABLE unique_keys (id INT NOT NULL, PRIMARY KEY (id) NOT ENFORCED)"
                + upsert.replace("'changelog-mode'", "'upsert.key-unique-across-tables' = 'true', 'changelog-mode'"));
        assertThat(tables.explainSql("SELECT * FROM unique_keys")).contains(SCAN);
    }

    @Test
    void aTableNameWithoutSchemaIsInDboOrInSchemaName() {
        tables.executeSql("CREATE TABLE orders (id INT)" + described(""));
        tables.explainSql("SELECT * FROM orders");
        assertThat(DescribedSqlServerTableFactory.described).isEqualTo(TableId.of("shop", "dbo", "orders"));
        tables.executeSql("CREATE TABLE sales_orders (id INT)" + described(", 'schema-name' = 'sales'"));
        tables.explainSql("SELECT * FROM sales_orders");
        assertThat(DescribedSqlServerTableFactory.described).isEqualTo(TableId.of("shop", "sales", "orders"));
        tables.executeSql("CREATE TABLE other (id INT) WITH ('connector' = 'rustcdc-sqlserver-described', "
                + "'hostname' = 'db', 'username' = 'cdc', 'password.env' = 'MSSQL_PASSWORD', 'database-name' = 'shop', "
                + "'table-name' = 'hr.orders')");
        tables.explainSql("SELECT * FROM other");
        assertThat(DescribedSqlServerTableFactory.described).isEqualTo(TableId.of("shop", "hr", "orders"));
    }

    @Test
    void everyTypeInItsDefaultMappingIsAccepted() {
        DescribedSqlServerTableFactory.columns = List.of(column("id", "int", 4, 10, 0, false),
                column("b", "bit", 1, 1, 0, true), column("ti", "tinyint", 1, 3, 0, true),
                column("si", "smallint", 2, 5, 0, true), column("bi", "bigint", 8, 19, 0, true),
                column("d", "decimal", 17, 38, 10, true), column("n", "numeric", 5, 9, 2, true),
                column("m", "money", 8, 19, 4, true), column("sm", "smallmoney", 4, 10, 4, true),
                column("r", "real", 4, 24, 0, true), column("f", "float", 8, 53, 0, true),
                column("c", "char", 10, 0, 0, true), column("vc", "varchar", -1, 0, 0, true),
                column("nc", "nchar", 20, 0, 0, true), column("nv", "nvarchar", 510, 0, 0, true),
                column("tx", "text", 16, 0, 0, true), column("ntx", "ntext", 16, 0, 0, true),
                column("x", "xml", -1, 0, 0, true), column("bn", "binary", 16, 0, 0, true),
                column("vb", "varbinary", -1, 0, 0, true), column("img", "image", 16, 0, 0, true),
                column("rv", "timestamp", 8, 0, 0, false), column("u", "uniqueidentifier", 16, 0, 0, true),
                column("dt", "date", 3, 10, 0, true), column("dt2", "datetime2", 8, 27, 7, true),
                column("dtm", "datetime", 8, 23, 3, true), column("sdt", "smalldatetime", 4, 16, 0, true),
                column("tm", "time", 5, 16, 7, true), column("dto", "datetimeoffset", 10, 34, 7, true));
        tables.executeSql("CREATE TABLE orders (id INT NOT NULL, b BOOLEAN, ti SMALLINT, si SMALLINT, bi BIGINT, "
                + "d DECIMAL(38, 10), n DECIMAL(9, 2), m DECIMAL(19, 4), sm DECIMAL(10, 4), r FLOAT, f DOUBLE, "
                + "c STRING, vc STRING, nc STRING, nv STRING, tx STRING, ntx STRING, x STRING, bn BYTES, vb BYTES, "
                + "img BYTES, rv BYTES NOT NULL, u STRING, dt DATE, dt2 TIMESTAMP(7), dtm TIMESTAMP(3), "
                + "sdt TIMESTAMP(0), tm TIME(3), dto STRING, PRIMARY KEY (id) NOT ENFORCED)" + described(""));
        if (FlinkVersion.current().isNewerVersionThan(FlinkVersion.v1_20)) {
            assertThat(tables.explainSql("SELECT * FROM orders")).contains(SCAN);
        } else {
            // Flink 1.20's DDL keeps TIME at precision 0 (TIME(3) is read as TIME(0)), which cannot hold
            // time(7)'s fractions: the only column refused, as it must be (docs/sql.md, Flink 1.20)
            assertThat(messages(catchThrowable(() -> tables.explainSql("SELECT * FROM orders"))))
                    .contains("column tm: declared TIME(0) cannot hold the source type time(7) exactly")
                    .doesNotContain("column dt2").doesNotContain("column dto");
        }
    }

    @Test
    void typesThatCouldLoseValuesAreRefusedInOneMessageNamingTableColumnAndRemedy() {
        DescribedSqlServerTableFactory.columns = List.of(column("id", "int", 4, 10, 0, false),
                column("ti", "tinyint", 1, 3, 0, true), column("m", "money", 8, 19, 4, true),
                column("dt2", "datetime2", 8, 27, 7, true), column("dto", "datetimeoffset", 10, 34, 7, true),
                column("u", "uniqueidentifier", 16, 0, 0, true), column("note", "nvarchar", 100, 0, 0, true));
        String messages = messages(planningError("id INT NOT NULL, ti TINYINT, m DECIMAL(18, 4), dt2 TIMESTAMP(6), "
                + "dto TIMESTAMP_LTZ(7), u VARCHAR(36), note STRING NOT NULL, gone INT", described("")));
        assertThat(messages).contains("The table declared for dbo.orders does not fit the source when the job is "
                        + "planned")
                .contains("column ti: declared TINYINT cannot hold the source type tinyint exactly; its values range "
                        + "from 0 to 255; use a type that holds them all (the default mapping is SMALLINT)")
                .contains("column m: declared DECIMAL(18, 4) cannot hold the source type money exactly; use "
                        + "DECIMAL(19, 4) or STRING (the default mapping is DECIMAL(19, 4))")
                .contains("column dt2: declared TIMESTAMP(6) cannot hold the source type datetime2(7) exactly; use "
                        + "TIMESTAMP(7)")
                .contains("column dto: declared TIMESTAMP_LTZ(7) cannot hold the source type datetimeoffset(7) "
                        + "exactly; use STRING")
                .contains("column u: declared VARCHAR(36) cannot hold the source type uniqueidentifier exactly; use STRING")
                .contains("column note is declared NOT NULL, but the source column nvarchar(50) is nullable")
                .contains("column gone INT does not exist in the source table");
    }

    @Test
    void upsertModeIsKeyedAndAllModeIsTheWholeChangelog() {
        tables.executeSql("CREATE TABLE orders (id INT NOT NULL, amount DECIMAL(19, 4), PRIMARY KEY (id) NOT ENFORCED)"
                + described(", 'changelog-mode' = 'upsert'"));
        assertThat(tables.explainSql("SELECT * FROM orders", ExplainDetail.CHANGELOG_MODE))
                .contains("changelogMode=[I,UA,D]");
        tables.executeSql("CREATE TABLE all_orders (id INT NOT NULL, amount DECIMAL(19, 4))"
                + with("rustcdc-sqlserver-described", "'hostname' = 'db.internal'", ""));
        assertThat(tables.explainSql("SELECT * FROM all_orders", ExplainDetail.CHANGELOG_MODE))
                .contains("changelogMode=[I,UB,UA,D]");
        assertThat(messages(planningError("id INT NOT NULL, amount DECIMAL(19, 4), PRIMARY KEY (amount) NOT ENFORCED",
                described(", 'changelog-mode' = 'upsert'"))))
                .contains("the declared PRIMARY KEY [amount] differs from the source's [id]");
    }

    /** The SQL Server stream marks each transaction's end: preserved boundaries are planned. */
    @Test
    void preservedTransactionBoundariesArePlanned() {
        tables.executeSql("CREATE TABLE orders (id INT NOT NULL)" + described(", 'scan.transaction-boundaries' = 'preserve'"));
        tables.toChangelogStream(tables.sqlQuery("SELECT * FROM orders"));
        assertThat(env.getStreamGraph().getStreamNodes()).isNotEmpty();
    }

    @Test
    void thePasswordIsInNoPlanAndAPasswordFileOnlyByItsPathInTheJobGraph(@TempDir Path dir) throws Exception {
        tables.executeSql("CREATE TABLE orders (id INT NOT NULL, amount DECIMAL(19, 4))" + described(""));
        String plan = tables.explainSql("SELECT * FROM orders", ExplainDetail.JSON_EXECUTION_PLAN);
        assertThat(plan).contains(SCAN).doesNotContain(PASSWORD);

        Path file = dir.resolve("password");
        Files.writeString(file, PASSWORD + "\n", StandardCharsets.UTF_8);
        tables.executeSql("CREATE TABLE by_file (id INT NOT NULL, amount DECIMAL(19, 4)) WITH ("
                + "'connector' = 'rustcdc-sqlserver-described', 'hostname' = 'db.internal', 'username' = 'cdc', "
                + "'password.file' = '" + file + "', 'database-name' = 'shop', 'table-name' = 'orders')");
        tables.toChangelogStream(tables.sqlQuery("SELECT * FROM by_file")).print();
        JobGraph graph = env.getStreamGraph().getJobGraph();
        assertThat(serializedText(graph)).contains(file.toString()).doesNotContain(PASSWORD);
    }
}
