package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
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
    private static Path jar;
    private static List<String> entries;

    @BeforeAll
    static void findJar() throws IOException {
        try (DirectoryStream<Path> found = Files.newDirectoryStream(Path.of("target"), "flink-sql-connector-rustcdc-postgres-*.jar")) {
            jar = found.iterator().next();
        }
        entries = new ArrayList<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            file.stream().map(JarEntry::getName).forEach(entries::add);
        }
    }

    @Test
    void holdsTheConnectorItsServiceEntryAndTheRelocatedDriver() throws IOException {
        assertThat(entries).contains("io/rustcdc/flink/sql/PostgresTableFactory.class",
                "io/rustcdc/flink/postgres/PostgresConnector.class", "io/rustcdc/flink/source/CdcSource.class",
                "io/rustcdc/flink/shaded/postgresql/Driver.class",
                "io/rustcdc/flink/shaded/jackson/core/JsonFactory.class");
        try (JarFile file = new JarFile(jar.toFile())) {
            assertThat(new String(file.getInputStream(file.getEntry("META-INF/services/org.apache.flink.table.factories.Factory"))
                    .readAllBytes(), StandardCharsets.UTF_8).trim()).isEqualTo("io.rustcdc.flink.sql.PostgresTableFactory");
            assertThat(new String(file.getInputStream(file.getEntry("META-INF/services/java.sql.Driver")).readAllBytes(),
                    StandardCharsets.UTF_8).trim()).isEqualTo("io.rustcdc.flink.shaded.postgresql.Driver");
        }
    }

    @Test
    void holdsNothingThatClashesWithFlinkOrAJobsLibraries() {
        assertThat(entries).filteredOn(e -> e.endsWith(".class")).allMatch(e -> e.startsWith("io/rustcdc/flink/"),
                "every class is ours or relocated under io/rustcdc/flink/shaded");
        assertThat(entries).noneMatch(e -> e.startsWith("org/apache/flink/") || e.startsWith("org/postgresql/")
                || e.startsWith("com/fasterxml/") || e.startsWith("META-INF/versions/") || e.startsWith("org/slf4j/")
                || e.startsWith("org/apache/logging/") || e.startsWith("com/github/shyiko/") || e.startsWith("io/debezium/")
                || e.startsWith("com/microsoft/") || e.startsWith("org/mariadb/"));
    }

    @Test
    void theRelocatedDriverConnectsOverTls(PostgresDatabase db) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(db.server().tlsCertificate() != null,
                "the external server's TLS setup is not known here");
        try (URLClassLoader isolated = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
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
