package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresServer;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.TlsMode;
import io.rustcdc.flink.testing.LocalProcesses;
import io.rustcdc.flink.testing.CapturedLogs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The password methods of pg_hba.conf, on a server of this test's own whose pg_hba.conf asks one
 * role for a cleartext password and another for MD5: cleartext is refused before the password is
 * sent unless the connection is TLS; MD5 works with one warning per user and server.
 */
@Timeout(180)
class PostgresAuthenticationITCase {
    private static final String CLEARTEXT_ROLE = "rustcdc_cleartext";
    private static final String MD5_ROLE = "rustcdc_md5";
    private static final String CLEARTEXT_PASSWORD = "pw-cleartext-7f3a";
    private static final String MD5_PASSWORD = "pw-md5-91c2";

    private static Path home;
    private static PostgresDatabase db;

    @BeforeAll
    static void startServer() throws Exception {
        assumeFalse(PostgresServer.external(), "pg_hba.conf of an external server is not this test's to change");
        home = LocalProcesses.serverDirectory("rustcdc-hba-");
        Path hba = home.resolve("pg_hba.conf");
        Files.writeString(hba, String.join("\n",
                "host all " + CLEARTEXT_ROLE + " 127.0.0.1/32 password",
                "host all " + MD5_ROLE + " 127.0.0.1/32 md5",
                "host all all 127.0.0.1/32 scram-sha-256",
                "host replication all 127.0.0.1/32 scram-sha-256",
                "local all all scram-sha-256", ""), StandardCharsets.UTF_8);
        if (LocalProcesses.runningAsRoot()) {
            LocalProcesses.chown(hba);
        }
        PostgresServer server = PostgresServer.startPrivate("hba_file=" + hba);
        db = server.createDatabase("auth");
        db.execute("SET password_encryption = 'md5'",
                "CREATE ROLE " + MD5_ROLE + " LOGIN PASSWORD '" + MD5_PASSWORD + "'",
                "SET password_encryption = 'scram-sha-256'",
                "CREATE ROLE " + CLEARTEXT_ROLE + " LOGIN PASSWORD '" + CLEARTEXT_PASSWORD + "'");
    }

    @AfterAll
    static void removeDirectory() {
        LocalProcesses.deleteTree(home);
    }

    @Test
    void aCleartextPasswordIsRefusedWithoutTlsAndNamesTheOption() {
        PostgresSourceConfig config = config(CLEARTEXT_ROLE, CLEARTEXT_PASSWORD, TlsMode.DISABLE);
        assertThatThrownBy(() -> PgConnections.open(config).close()).isInstanceOf(CdcException.class)
                .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.CONFIGURATION))
                .hasMessageContaining("asks user '" + CLEARTEXT_ROLE + "' for the password in cleartext")
                .hasMessageContaining("'tls.mode' = disable")
                .hasMessageContaining("Set 'tls.mode' to require")
                .satisfies(e -> assertThat(e.toString()).doesNotContain(CLEARTEXT_PASSWORD));
        assertThatThrownBy(() -> PgConnections.openReplication(config).close())
                .hasMessageContaining("in cleartext");
    }

    @Test
    void aCleartextPasswordIsSentOverTls() throws Exception {
        try (Connection c = PgConnections.open(config(CLEARTEXT_ROLE, CLEARTEXT_PASSWORD, TlsMode.REQUIRE))) {
            assertThat(query(c, "SELECT current_user")).isEqualTo(CLEARTEXT_ROLE);
            assertThat(query(c, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")).isEqualTo("t");
        }
    }

    @Test
    void md5WorksWithOneWarningPerUserAndServer() throws Exception {
        PostgresSourceConfig md5 = config(MD5_ROLE, MD5_PASSWORD, TlsMode.DISABLE);
        try (CapturedLogs logs = CapturedLogs.start("org.postgresql")) {
            for (int i = 0; i < 3; i++) {
                try (Connection c = PgConnections.open(md5)) {
                    assertThat(query(c, "SELECT current_user")).isEqualTo(MD5_ROLE);
                }
            }
            try (Connection c = PgConnections.open(config(db.replicationUser(), db.replicationPassword(),
                    TlsMode.DISABLE))) {
                assertThat(query(c, "SELECT current_user")).isEqualTo(db.replicationUser());
            }
            assertThat(logs.containing("with MD5")).hasSize(1).first().asString()
                    .contains("WARN", "user '" + MD5_ROLE + "'", "127.0.0.1:" + db.port(), "scram-sha-256");
            assertThat(logs.containing(MD5_PASSWORD)).isEmpty();
        }
    }

    private static PostgresSourceConfig config(String user, String password, TlsMode tls) {
        return PostgresSourceConfig.builder().hostname(db.host()).port(db.port()).database(db.name())
                .username(user).password(Secret.of(password)).tlsMode(tls).build();
    }

    private static String query(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
