package io.rustcdc.flink.mysql;

import static io.rustcdc.flink.testing.SecretChecks.randomHex;
import static io.rustcdc.flink.testing.SecretChecks.randomPassword;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import io.rustcdc.flink.mysql.binlog.BinlogClients;
import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.TlsMode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Oracle MySQL's default login, {@code caching_sha2_password}, without TLS: until the server has
 * cached the user's login it wants the password encrypted with its RSA public key. The JDBC login
 * fetches that key only with {@code allow-public-key-retrieval}, and otherwise fails naming both
 * remedies; the binlog client fetches it on its own.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(120)
class MySqlPublicKeyLoginITCase {

    @Test
    void aLoginWithoutTlsFetchesTheServersKeyOnlyWhenAllowed(MySqlDatabase db) throws Exception {
        assumeFalse(db.server().isMariaDb(), "caching_sha2_password is Oracle MySQL's; MariaDB has no such login");
        String user = "rsa_" + randomHex(4);
        String password = randomPassword();
        db.execute("CREATE USER '" + user + "'@'%' IDENTIFIED WITH caching_sha2_password BY '" + password + "'",
                "GRANT " + MySqlServer.CDC_GRANTS + " ON *.* TO '" + user + "'@'%'",
                "FLUSH PRIVILEGES"); // empties the server's cache of logins

        MySqlSourceConfig refused = config(db, user, password, false);
        assertThatThrownBy(() -> MySqlConnections.connect(refused).close()).isInstanceOf(CdcException.class)
                .hasMessageContaining("as '" + user + "'")
                .hasMessageContaining("'tls.mode' = 'require'")
                .hasMessageContaining("'allow-public-key-retrieval' = 'true'")
                .satisfies(e -> assertThat(e.toString()).doesNotContain(password));

        MySqlSourceConfig allowed = config(db, user, password, true);
        try (Connection c = MySqlConnections.connect(allowed);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT CURRENT_USER()")) {
            rs.next();
            assertThat(rs.getString(1)).startsWith(user + "@");
        }

        db.execute("FLUSH PRIVILEGES"); // the binlog client's own login, not helped by the cache either
        List<String> end = db.binlogStatus();
        BinaryLogClient client = BinlogClients.create(allowed, end.get(0), Long.parseLong(end.get(1)), e -> { },
                e -> { });
        client.connect(10_000);
        assertThat(client.isConnected()).isTrue();
        client.disconnect();
    }

    private static MySqlSourceConfig config(MySqlDatabase db, String user, String password, boolean allow) {
        return MySqlSourceConfig.builder(ServerFlavor.MYSQL).hostname(db.host()).port(db.port()).username(user)
                .password(Secret.of(password)).tlsMode(TlsMode.DISABLE).serverId(4242).allowPublicKeyRetrieval(allow)
                .build();
    }
}
