package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.sqlserver.testing.SqlServerDatabase;
import java.io.IOException;
import java.net.URLClassLoader;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The self-contained SQL Server SQL connector jar for Flink's {@code lib/}: its factory and service
 * entry, mssql-jdbc relocated (and working from the jar alone: its messages come from its relocated
 * resource bundle), and nothing that could clash. Needs no server except for the TLS connection, which
 * runs only against a server given by {@code RUSTCDC_TEST_SQLSERVER_URL} (skipped otherwise).
 */
@Timeout(120)
class SqlServerConnectorJarITCase {
    private static final String DRIVER = "io.rustcdc.flink.shaded.mssql.sqlserver.jdbc.SQLServerDriver";
    private static ConnectorJar jar;

    @BeforeAll
    static void findJar() throws IOException {
        jar = new ConnectorJar("rustcdc-sqlserver");
    }

    @Test
    void holdsTheFactoryItsServiceEntryAndTheRelocatedDriver() throws IOException {
        assertThat(jar.entries).contains("io/rustcdc/flink/sql/SqlServerTableFactory.class",
                "io/rustcdc/flink/sql/SqlServerCatalogFactory.class",
                "io/rustcdc/flink/sql/SqlServerTypes.class", "io/rustcdc/flink/sqlserver/SqlServerConnector.class",
                "io/rustcdc/flink/source/CdcSource.class", DRIVER.replace('.', '/') + ".class",
                "io/rustcdc/flink/shaded/mssql/types/DateTimeOffset.class",
                "io/rustcdc/flink/shaded/jackson/core/JsonFactory.class");
        assertThat(jar.entries).noneMatch(e -> e.matches("io/rustcdc/flink/sql/Postgres(Table|Catalog)Factory.*")
                || e.matches("io/rustcdc/flink/sql/MySql(Table|Catalog)Factory.*") || e.startsWith("io/rustcdc/flink/postgres/")
                || e.startsWith("io/rustcdc/flink/mysql/") || e.startsWith("microsoft/") || e.startsWith("mssql/")
                || e.startsWith("META-INF/MSFTSIG"));
        assertThat(jar.text("META-INF/services/org.apache.flink.table.factories.Factory"))
                .isEqualTo("io.rustcdc.flink.sql.SqlServerTableFactory\nio.rustcdc.flink.sql.SqlServerCatalogFactory");
        assertThat(jar.text("META-INF/services/java.sql.Driver")).isEqualTo(DRIVER);
    }

    @Test
    void theOtherJarsHoldNoSqlServerFactory() throws IOException {
        for (String name : new String[] {"rustcdc-postgres", "rustcdc-mysql"}) {
            ConnectorJar other = new ConnectorJar(name);
            assertThat(other.entries).as(name).noneMatch(e -> e.matches("io/rustcdc/flink/sql/SqlServer(Table|Catalog)Factory.*")
                    || e.startsWith("io/rustcdc/flink/sqlserver/"));
            assertThat(other.text("META-INF/services/org.apache.flink.table.factories.Factory")).as(name)
                    .doesNotContain("SqlServer");
        }
    }

    @Test
    void holdsNothingThatClashesWithFlinkOrAJobsLibraries() {
        jar.assertNothingClashes();
    }

    @Test
    void theRelocatedDriverRunsFromTheJarAlone() throws Exception {
        try (URLClassLoader isolated = jar.isolatedLoader()) {
            Driver driver = (Driver) isolated.loadClass(DRIVER).getDeclaredConstructor().newInstance();
            assertThat(driver.acceptsURL("jdbc:sqlserver://127.0.0.1:1")).isTrue();
            Properties props = new Properties();
            props.setProperty("user", "nobody");
            props.setProperty("password", "unused");
            props.setProperty("loginTimeout", "2");
            props.setProperty("encrypt", "false");
            // nothing listens on port 1: the driver's own message, read from its relocated resource bundle
            assertThatThrownBy(() -> driver.connect("jdbc:sqlserver://127.0.0.1:1", props))
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(e.getClass().getName()).startsWith("io.rustcdc.flink.shaded.mssql."))
                    .hasMessageContaining("127.0.0.1").hasMessageContaining("1");
        }
    }

    @Test
    void theRelocatedDriverConnectsOverTls() throws Exception {
        SqlServerDatabase.assumeGiven();
        org.junit.jupiter.api.Assumptions.assumeTrue(
                !System.getenv(SqlServerDatabase.URL).toLowerCase(java.util.Locale.ROOT).contains("encrypt=false"),
                "the given server is reached without TLS");
        try (URLClassLoader isolated = jar.isolatedLoader()) {
            Driver driver = (Driver) isolated.loadClass(DRIVER).getDeclaredConstructor().newInstance();
            Properties props = new Properties();
            props.setProperty("user", System.getenv(SqlServerDatabase.USER));
            props.setProperty("password", System.getenv(SqlServerDatabase.PASSWORD));
            props.setProperty("encrypt", "true");
            props.setProperty("trustServerCertificate", "true");
            try (Connection c = driver.connect(System.getenv(SqlServerDatabase.URL), props);
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT encrypt_option FROM sys.dm_exec_connections "
                            + "WHERE session_id = @@SPID")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("TRUE");
            }
        }
    }
}
