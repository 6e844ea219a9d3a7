package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
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
 * The self-contained MySQL/MariaDB SQL connector jar for Flink's {@code lib/}: both factories, the
 * MariaDB driver and the binlog client, relocated, and nothing that could clash. Its driver connects over TLS to
 * the JVM's server: MariaDB, or Oracle MySQL in the module's {@code oracle-mysql} execution.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(120)
class MySqlConnectorJarITCase {
    private static ConnectorJar jar;

    @BeforeAll
    static void findJar() throws IOException {
        jar = new ConnectorJar("rustcdc-mysql");
    }

    @Test
    void holdsBothFactoriesTheirServiceEntryAndTheRelocatedClients() throws IOException {
        assertThat(jar.entries).contains("io/rustcdc/flink/sql/MySqlTableFactory.class",
                "io/rustcdc/flink/sql/MySqlTableFactory$MariaDb.class", "io/rustcdc/flink/sql/MySqlCatalogFactory.class",
                "io/rustcdc/flink/mysql/MySqlConnector.class",
                "io/rustcdc/flink/source/CdcSource.class", "io/rustcdc/flink/shaded/mariadb/jdbc/Driver.class",
                "io/rustcdc/flink/shaded/binlog/BinaryLogClient.class",
                "io/rustcdc/flink/shaded/aircompressor/zstd/ZstdInputStream.class"); // compressed MySQL transactions
        assertThat(jar.entries).noneMatch(e -> e.matches("io/rustcdc/flink/sql/Postgres(Table|Catalog)Factory.*"));
        assertThat(jar.text("META-INF/services/org.apache.flink.table.factories.Factory"))
                .isEqualTo("io.rustcdc.flink.sql.MySqlTableFactory\nio.rustcdc.flink.sql.MySqlTableFactory$MariaDb\n"
                        + "io.rustcdc.flink.sql.MySqlCatalogFactory\nio.rustcdc.flink.sql.MySqlCatalogFactory$MariaDb");
        assertThat(jar.text("META-INF/services/java.sql.Driver")).isEqualTo("io.rustcdc.flink.shaded.mariadb.jdbc.Driver");
    }

    @Test
    void theRelocatedBinlogClientIsBuiltFromTheJarAlone() throws Exception {
        try (URLClassLoader isolated = jar.isolatedLoader()) {
            // every client builds the binlog library's own event readers, whose compressed-transaction reader
            // needs a ZstdInputStream: zstd-jni's, absent from a Flink cluster, relocated to aircompressor's
            Object client = isolated.loadClass("io.rustcdc.flink.shaded.binlog.BinaryLogClient")
                    .getConstructor(String.class, int.class, String.class, String.class)
                    .newInstance("127.0.0.1", 3306, "nobody", "unused");
            assertThat(client).isNotNull();
        }
    }

    @Test
    void holdsNothingThatClashesWithFlinkOrAJobsLibraries() {
        jar.assertNothingClashes();
    }

    @Test
    void theRelocatedDriverConnectsOverTls(MySqlDatabase db) throws Exception {
        try (URLClassLoader isolated = jar.isolatedLoader()) {
            Driver driver = (Driver) isolated.loadClass("io.rustcdc.flink.shaded.mariadb.jdbc.Driver")
                    .getDeclaredConstructor().newInstance();
            Properties props = new Properties();
            props.setProperty("user", db.cdcUser());
            props.setProperty("password", db.cdcPassword());
            props.setProperty("sslMode", "trust");
            try (Connection c = driver.connect("jdbc:mariadb://" + db.host() + ":" + db.port() + "/", props);
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SHOW SESSION STATUS LIKE 'Ssl_cipher'")) {
                rs.next();
                assertThat(rs.getString(2)).isNotEmpty();
            }
        }
    }
}
