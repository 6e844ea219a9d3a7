package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import java.io.IOException;
import java.net.URLClassLoader;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The self-contained SQL connector jar for Flink's {@code lib/}: it holds the connector, the
 * factory's service entry and PgJDBC, relocated, and nothing that could clash with Flink or with
 * another version of a library a job brings.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(120)
class SqlConnectorJarITCase {
    private static ConnectorJar jar;

    @BeforeAll
    static void findJar() throws IOException {
        jar = new ConnectorJar("rustcdc-postgres");
    }

    @Test
    void holdsTheConnectorItsServiceEntryAndTheRelocatedDriver() throws IOException {
        assertThat(jar.entries).contains("io/rustcdc/flink/sql/PostgresTableFactory.class",
                "io/rustcdc/flink/sql/PostgresCatalogFactory.class",
                "io/rustcdc/flink/postgres/PostgresConnector.class", "io/rustcdc/flink/source/CdcSource.class",
                "io/rustcdc/flink/shaded/postgresql/Driver.class",
                "io/rustcdc/flink/shaded/jackson/core/JsonFactory.class");
        assertThat(jar.entries).noneMatch(e -> e.matches("io/rustcdc/flink/sql/MySql(Table|Catalog)Factory.*"));
        assertThat(jar.text("META-INF/services/org.apache.flink.table.factories.Factory"))
                .isEqualTo("io.rustcdc.flink.sql.PostgresTableFactory\nio.rustcdc.flink.sql.PostgresCatalogFactory");
        assertThat(jar.text("META-INF/services/java.sql.Driver")).isEqualTo("io.rustcdc.flink.shaded.postgresql.Driver");
    }

    @Test
    void holdsNothingThatClashesWithFlinkOrAJobsLibraries() {
        jar.assertNothingClashes();
    }

    @Test
    void theRelocatedDriverConnectsOverTls(PostgresDatabase db) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(db.server().tlsCertificate() != null,
                "the external server's TLS setup is not known here");
        try (URLClassLoader isolated = jar.isolatedLoader()) {
            Driver driver = (Driver) isolated.loadClass("io.rustcdc.flink.shaded.postgresql.Driver")
                    .getDeclaredConstructor().newInstance();
            Properties props = new Properties();
            props.setProperty("user", db.replicationUser());
            props.setProperty("password", db.replicationPassword());
            props.setProperty("sslmode", "require");
            try (Connection c = driver.connect(db.jdbcUrl(), props);
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
                rs.next();
                assertThat(rs.getBoolean(1)).isTrue();
            }
        }
    }
}
