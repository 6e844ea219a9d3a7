package io.rustcdc.flink.sqlserver.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.TlsMode;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.sqlserver.SqlServerChunkMark;
import io.rustcdc.flink.sqlserver.SqlServerConnector;
import io.rustcdc.flink.sqlserver.SqlServerPosition;
import io.rustcdc.flink.sqlserver.SqlServerSourceConfig;
import io.rustcdc.flink.testing.SqlDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A test's own CDC-enabled database on the SQL Server given by {@code RUSTCDC_TEST_SQLSERVER_URL}
 * (a JDBC URL, {@code jdbc:sqlserver://host:1433;encrypt=true;trustServerCertificate=true}), {@code
 * _USER} and {@code _PASSWORD}: a login that may create databases and enable CDC, with SQL Server
 * Agent running. Without them {@link #create} gives null and {@link #assumeGiven} skips each test (a
 * JUnit assumption, reported as skipped): SQL Server cannot be installed on the project's machines.
 * {@link #close} drops the database.
 */
public final class SqlServerDatabase extends SqlDatabase implements AutoCloseable {
    public static final String URL = "RUSTCDC_TEST_SQLSERVER_URL";
    public static final String USER = "RUSTCDC_TEST_SQLSERVER_USER";
    public static final String PASSWORD = "RUSTCDC_TEST_SQLSERVER_PASSWORD";

    private static final Pattern HOST_PORT = Pattern.compile("jdbc:sqlserver://([^:;/\\\\]+)(?::(\\d+))?.*");

    private final String url;
    private final String user;
    private final String password;
    private final String host;
    private final int port;
    /** Whether the capture job was set to poll every second (it exists once a table is enabled). */
    private volatile boolean fastCapture;

    private SqlServerDatabase(String name, String url, String user, String password) {
        super(name);
        this.url = url;
        this.user = user;
        this.password = password;
        Matcher m = HOST_PORT.matcher(url);
        if (!m.matches()) {
            throw new IllegalArgumentException(URL + " is not a jdbc:sqlserver:// URL: " + url);
        }
        this.host = m.group(1);
        this.port = m.group(2) == null ? 1433 : Integer.parseInt(m.group(2));
    }

    /** Skips the calling test when no server is given. */
    public static void assumeGiven() {
        assumeTrue(given(), "No SQL Server given: set " + URL + ", " + USER + " and " + PASSWORD
                + " to run the SQL Server integration tests");
    }

    /** Whether a server is given. */
    public static boolean given() {
        String url = System.getenv(URL);
        return url != null && !url.isBlank();
    }

    /** A new database with CDC enabled on the given server, named after {@code hint} (a test class). */
    public static SqlServerDatabase create(String hint) {
        String url = System.getenv(URL);
        SqlServerDatabase db = new SqlServerDatabase("rustcdc_" + hint.toLowerCase(Locale.ROOT) + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 8), url, System.getenv(USER),
                System.getenv(PASSWORD));
        try (Connection c = db.server()) {
            c.createStatement().execute("CREATE DATABASE " + db.name());
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create a test database on " + url + ": " + e.getMessage(), e);
        }
        db.execute("EXEC sys.sp_cdc_enable_db");
        return db;
    }

    /** Enables CDC on {@code dbo.table} (a capture instance {@code dbo_<table>}) and waits until it has a floor. */
    public void enableTable(String table) {
        execute("EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = N'" + table
                + "', @role_name = NULL");
        if (!fastCapture) { // the first table creates the capture job: poll every second instead of every five
            execute("EXEC sys.sp_cdc_change_job @job_type = N'capture', @pollinginterval = 1",
                    "EXEC sys.sp_cdc_stop_job @job_type = N'capture'", "EXEC sys.sp_cdc_start_job @job_type = N'capture'");
            fastCapture = true;
        }
        awaitValue("SELECT COUNT(*) FROM cdc.change_tables ct WHERE ct.source_object_id = OBJECT_ID(N'dbo." + table
                + "') AND ct.start_lsn IS NOT NULL", "1");
    }

    /**
     * Adds capture instance {@code instance} to {@code dbo.table} (a second one: an ALTER's switch) and waits until it
     * has a floor.
     */
    public void enableInstance(String table, String instance) {
        execute("EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = N'" + table
                + "', @role_name = NULL, @capture_instance = N'" + instance + "'");
        awaitValue("SELECT COUNT(*) FROM cdc.change_tables WHERE capture_instance = N'" + instance
                + "' AND start_lsn IS NOT NULL", "1");
    }

    /** Drops capture instance {@code instance} of {@code dbo.table}. */
    public void disableInstance(String table, String instance) {
        execute("EXEC sys.sp_cdc_disable_table @source_schema = N'dbo', @source_name = N'" + table
                + "', @capture_instance = N'" + instance + "'");
    }

    /** The offset the server's clock runs at now ({@code Z}, {@code +02:00}), for {@code server-time-zone}. */
    public String serverTimeZone() {
        int minutes = Integer.parseInt(queryValue("SELECT DATEPART(TZOFFSET, SYSDATETIMEOFFSET())"));
        return ZoneOffset.ofTotalSeconds(minutes * 60).getId();
    }

    /** The server's clock now, as an instant ({@code SYSUTCDATETIME()}). */
    public Instant serverNow() {
        return LocalDateTime.parse(queryValue("SELECT CONVERT(varchar(27), SYSUTCDATETIME(), 126)")).toInstant(
                ZoneOffset.UTC);
    }

    /**
     * Creates each table ({@code name (columns)}) with CDC enabled, and opens a stream over them from
     * the position {@code prepareStream} returns now.
     */
    public ChangeStream<SqlServerPosition> streamFromNow(SqlServerSourceConfig config, String... tables) {
        List<TableId> ids = new ArrayList<>();
        for (String definition : tables) {
            String table = definition.substring(0, definition.indexOf(' '));
            execute("CREATE TABLE " + definition);
            enableTable(table);
            ids.add(TableId.of(name(), "dbo", table));
        }
        SqlServerConnector connector = SqlServerConnector.create(config);
        return connector.openStream(prepare(connector, ids), TableFilter.all());
    }

    /** {@code prepareStream} of {@code tables} (checked as at a start): the position a stream starts at now. */
    public SqlServerPosition prepare(SqlServerConnector connector, List<TableId> tables) {
        try (CatalogSession<SqlServerPosition, SqlServerChunkMark> s = connector.openSession()) {
            return s.prepareStream(tables, true);
        }
    }

    /** Waits up to 60 s for {@code sql} to return {@code expected}. */
    public void awaitValue(String sql, String expected) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!expected.equals(queryValue(sql))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Waited 60 s for " + sql + " to return " + expected + ", got "
                        + queryValue(sql));
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public Connection admin() throws SQLException {
        Properties props = credentials();
        props.setProperty("databaseName", name());
        return DriverManager.getConnection(url, props);
    }

    private Connection server() throws SQLException {
        return DriverManager.getConnection(url, credentials());
    }

    private Properties credentials() {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        return props;
    }

    /** A connector configuration for this database as the given login, TLS as the URL asks. */
    public SqlServerSourceConfig.Builder config() {
        return SqlServerSourceConfig.builder().hostname(host).port(port).username(user).password(Secret.of(password))
                .database(name()).tlsMode(tlsMode());
    }

    /** The given login. */
    public String user() {
        return user;
    }

    /** The given login's password, for a test's own connection options (SQL {@code WITH} clauses). */
    public String password() {
        return password;
    }

    /** {@code disable} when the URL says {@code encrypt=false}, else {@code require}. */
    public TlsMode tlsMode() {
        return url.toLowerCase(Locale.ROOT).contains("encrypt=false") ? TlsMode.DISABLE : TlsMode.REQUIRE;
    }

    @Override
    public void close() {
        try (Connection c = server()) {
            c.createStatement().execute("USE " + name() + "; EXEC sys.sp_cdc_disable_db; USE master; "
                    + "ALTER DATABASE " + name() + " SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE " + name());
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot drop test database " + name() + ": " + e.getMessage(), e);
        }
    }
}
