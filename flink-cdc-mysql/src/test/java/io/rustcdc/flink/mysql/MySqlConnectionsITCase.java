package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.TlsMode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** TLS by default, plaintext only when chosen, and failures that name the server and user but never the password. */
@ExtendWith(MySqlExtension.class)
@Timeout(120)
class MySqlConnectionsITCase {

    private static MySqlSourceConfig.Builder config(MySqlDatabase db) {
        return MySqlSourceConfig.builder(db.server().isMariaDb() ? ServerFlavor.MARIADB : ServerFlavor.MYSQL)
                .hostname(db.host()).port(db.port()).username(db.cdcUser()).password(Secret.of(db.cdcPassword()))
                .serverId(5401);
    }

    @Test
    void connectionsAreEncryptedByDefault(MySqlDatabase db) throws Exception {
        try (Connection c = MySqlConnections.connect(config(db).build())) {
            assertThat(sslCipher(c)).as("the session's TLS cipher").isNotEmpty();
            MySqlPrerequisites.check(c, config(db).build().flavor());
        }
    }

    @Test
    void plaintextOnlyWhenChosen(MySqlDatabase db) throws Exception {
        try (Connection c = MySqlConnections.connect(config(db).tlsMode(TlsMode.DISABLE).build())) {
            assertThat(sslCipher(c)).isEmpty();
        }
    }

    @Test
    void aWrongPasswordNamesTheServerAndTheUserButNotThePassword(MySqlDatabase db) {
        String wrong = "not-the-password-8f3a";
        assertThatThrownBy(() -> MySqlConnections.connect(config(db).password(Secret.of(wrong)).build()))
                // final: a restart would be refused the same way
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                .hasMessageContaining("at " + db.host() + ":" + db.port() + " as '" + db.cdcUser() + "'")
                .hasMessageContaining("Check host, port, user and password")
                .hasMessageNotContaining(wrong);
    }

    @Test
    void verifyFullWithARootCertThatIsNotThereFailsNamingTheTlsOptions(MySqlDatabase db) {
        assertThatThrownBy(() -> MySqlConnections.connect(config(db).tlsMode(TlsMode.VERIFY_FULL)
                        .tlsRootCert("/nonexistent/ca.pem").build()))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.CONNECTION))
                .hasMessageContaining("(tls.mode verify-full)")
                .hasMessageContaining("Check 'tls.mode' and 'tls.root-cert'");
    }

    private static String sslCipher(Connection c) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW SESSION STATUS LIKE 'Ssl_cipher'")) {
            return rs.next() ? rs.getString(2) : "";
        }
    }
}
