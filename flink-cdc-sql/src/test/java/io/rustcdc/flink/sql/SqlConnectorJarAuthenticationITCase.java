package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import java.net.URL;
import java.net.URLClassLoader;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The connector's password check is PgJDBC's authentication plugin, named by class: the relocated
 * driver of the SQL jar finds it in the jar and logs in through it.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(120)
class SqlConnectorJarAuthenticationITCase {

    @Test
    void theRelocatedDriverLogsInThroughTheConnectorsAuthenticationPlugin(PostgresDatabase db) throws Exception {
        ConnectorJar jar = new ConnectorJar("rustcdc-postgres");
        assertThat(jar.entries).contains("io/rustcdc/flink/postgres/PgAuthentication.class");
        // The jar and SLF4J's API, which Flink's lib/ provides beside it.
        URL slf4j = org.slf4j.LoggerFactory.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader isolated = new URLClassLoader(new URL[] {jar.path.toUri().toURL(), slf4j},
                ClassLoader.getPlatformClassLoader())) {
            Driver driver = (Driver) isolated.loadClass("io.rustcdc.flink.shaded.postgresql.Driver")
                    .getDeclaredConstructor().newInstance();
            Properties props = new Properties();
            props.setProperty("user", db.replicationUser());
            props.setProperty("password", db.replicationPassword());
            props.setProperty("sslmode", "disable");
            props.setProperty("authenticationPluginClassName", "io.rustcdc.flink.postgres.PgAuthentication");
            try (Connection c = driver.connect(db.jdbcUrl(), props);
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT current_user")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo(db.replicationUser());
            }
        }
    }
}
