package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.SecretProvider;
import io.rustcdc.flink.source.TlsMode;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

class MySqlSourceConfigTest {

    private static MySqlSourceConfig.Builder valid() {
        return MySqlSourceConfig.builder(ServerFlavor.MARIADB).hostname("db").username("cdc")
                .password(Secret.of("s3cret-value")).serverId(5401);
    }

    @Test
    void serverIdHasNoDefaultAndSaysWhy() {
        assertThatThrownBy(() -> valid().serverId(0).build())
                .hasMessageContaining("Option 'server-id' is required and has no default")
                .hasMessageContaining("two clients with one id make the server drop one of them");
    }

    @Test
    void serverIdMustFitInAnUnsigned32BitInteger() {
        assertThatThrownBy(() -> valid().serverId(-1).build()).hasMessageContaining("must be 1 to 4294967295, not -1");
        assertThatThrownBy(() -> valid().serverId(4_294_967_296L).build()).hasMessageContaining("not 4294967296");
        assertThat(valid().serverId(4_294_967_295L).build().serverId()).isEqualTo(4_294_967_295L);
    }

    @Test
    void theBinlogCheckIntervalIsOneSecondToTenMinutes() {
        assertThat(valid().build().binlogCheckInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThatThrownBy(() -> valid().binlogCheckInterval(Duration.ofMillis(999)).build())
                .hasMessage("Option 'binlog.check-interval' must be 1 s to 10 min, not PT0.999S");
        assertThatThrownBy(() -> valid().binlogCheckInterval(Duration.ofMinutes(11)).build())
                .hasMessageContaining("'binlog.check-interval' must be 1 s to 10 min");
        assertThat(MySqlSourceConfig.fromConfiguration(ServerFlavor.MARIADB, Configuration.fromMap(Map.of(
                "hostname", "db", "username", "cdc", "password", "x", "server-id", "7", "binlog.check-interval", "2 s")))
                .binlogCheckInterval()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void requiredOptionsAreNamedAndThePasswordIsNeverShown() {
        assertThatThrownBy(() -> valid().hostname(null).build()).hasMessage("Option 'hostname' is required");
        assertThatThrownBy(() -> valid().password(null).build()).hasMessageContaining("No password");
        assertThatThrownBy(() -> valid().port(0).build()).hasMessageContaining("'port' must be 1 to 65535");
        MySqlSourceConfig config = valid().build();
        assertThat(config.toString()).contains("MARIADB", "cdc@db:3306", "server-id=5401").doesNotContain("s3cret-value");
    }

    @Test
    void verifyingTheServerCertificateNeedsTheRootCertificate() {
        for (TlsMode mode : new TlsMode[] {TlsMode.VERIFY_CA, TlsMode.VERIFY_FULL}) {
            assertThatThrownBy(() -> valid().tlsMode(mode).build()).isInstanceOf(CdcException.class)
                    .hasMessageContaining("'tls.mode' = " + mode).hasMessageContaining("set 'tls.root-cert'")
                    .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.CONFIGURATION));
            assertThat(valid().tlsMode(mode).tlsRootCert("/ca.pem").build().tlsMode()).isEqualTo(mode);
        }
    }

    @Test
    void readsTheSharedConnectionOptionsWithItsOwnPort() {
        MySqlSourceConfig config = MySqlSourceConfig.fromConfiguration(ServerFlavor.MYSQL, Configuration.fromMap(Map.of(
                "hostname", "db", "username", "cdc", "password.env", "CDC_PASSWORD", "server-id", "7",
                "tls.mode", "disable", "connect.timeout", "4 s")));
        assertThat(config.port()).isEqualTo(3306);
        assertThat(config.tlsMode()).isEqualTo(TlsMode.DISABLE);
        assertThat(config.connectTimeout()).isEqualTo(Duration.ofSeconds(4));
        assertThat(config.password()).isEqualTo(SecretProvider.environment("CDC_PASSWORD"));
        assertThat(MySqlConnections.sslMode(TlsMode.REQUIRE)).isEqualTo("trust");
    }

    @Test
    void eachFlavorHasItsOwnConnectorIdentity() {
        assertThat(ServerFlavor.MYSQL.connectorName()).isEqualTo("rustcdc-mysql");
        assertThat(ServerFlavor.MARIADB.connectorName()).isEqualTo("rustcdc-mariadb");
        assertThat(ServerFlavor.ofVersion("11.4.5-MariaDB-log")).isEqualTo(ServerFlavor.MARIADB);
        assertThat(ServerFlavor.ofVersion("8.4.3")).isEqualTo(ServerFlavor.MYSQL);
    }
}
