package io.rustcdc.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

class ConnectionSettingsTest {
    private static final ConfigOption<Integer> PORT = ConfigOptions.key("port").intType().defaultValue(1234);

    private static ConnectionSettings.Builder valid() {
        return ConnectionSettings.builder(1234).hostname("db").username("cdc").password(Secret.of("s3cret-value"));
    }

    @Test
    void defaultsAreTheConnectorsPortEncryptionAndThirtySeconds() {
        ConnectionSettings settings = valid().build();
        assertThat(settings.port()).isEqualTo(1234);
        assertThat(settings.tlsMode()).isEqualTo(TlsMode.REQUIRE);
        assertThat(settings.tlsRootCert()).isNull();
        assertThat(settings.connectTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(settings.readTimeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(settings.describe()).isEqualTo("cdc@db:1234");
    }

    @Test
    void eachMissingOrWrongOptionIsNamed() {
        assertConfigError(valid().hostname(null), "Option 'hostname' is required");
        assertConfigError(valid().hostname(" "), "Option 'hostname' is required");
        assertConfigError(valid().username(null), "Option 'username' is required");
        assertConfigError(valid().password(null), "No password: set 'password', 'password.env' or 'password.file'");
        assertConfigError(valid().port(0), "Option 'port' must be 1 to 65535, not 0");
        assertConfigError(valid().port(65536), "not 65536");
        assertConfigError(valid().connectTimeout(Duration.ofMillis(999)), "'connect.timeout' must be 1 s to 300 s");
        assertConfigError(valid().connectTimeout(Duration.ofSeconds(301)), "'connect.timeout' must be 1 s to 300 s");
        assertThat(valid().port(65535).connectTimeout(Duration.ofSeconds(300)).build().port()).isEqualTo(65535);
        assertConfigError(valid().readTimeout(Duration.ofMillis(999)), "'read.timeout' must be 1 s to 1 day");
        assertConfigError(valid().readTimeout(Duration.ofHours(25)), "'read.timeout' must be 1 s to 1 day");
        assertThat(valid().readTimeout(Duration.ofDays(1)).build().readTimeout()).isEqualTo(Duration.ofDays(1));
    }

    @Test
    void verifyingModesNeedTheRootCertificate() {
        for (TlsMode mode : TlsMode.values()) {
            if (mode.verifiesCertificate()) {
                assertConfigError(valid().tlsMode(mode), "'tls.mode' = " + mode + " verifies the server's certificate: "
                        + "set 'tls.root-cert'");
                assertThat(valid().tlsMode(mode).tlsRootCert("/ca.pem").build().tlsRootCert()).isEqualTo("/ca.pem");
            } else {
                assertThat(valid().tlsMode(mode).build().tlsMode()).isEqualTo(mode);
            }
        }
        assertThat(TlsMode.DISABLE.encrypts()).isFalse();
        assertThat(TlsMode.REQUIRE.encrypts()).isTrue();
    }

    @Test
    void readsTheSharedOptionsByTheirNamesAndTheConnectorsPort() {
        ConnectionSettings settings = ConnectionSettings.builder(1234).options(Configuration.fromMap(Map.of(
                "hostname", "db", "port", "4321", "username", "cdc", "password.file", "/run/secrets/db",
                "tls.mode", "verify-ca", "tls.root-cert", "/ca.pem", "connect.timeout", "5 s",
                "read.timeout", "90 s")), PORT).build();
        assertThat(settings.hostname()).isEqualTo("db");
        assertThat(settings.port()).isEqualTo(4321);
        assertThat(settings.tlsMode()).isEqualTo(TlsMode.VERIFY_CA);
        assertThat(settings.tlsRootCert()).isEqualTo("/ca.pem");
        assertThat(settings.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(settings.readTimeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(settings.password()).isEqualTo(SecretProvider.file("/run/secrets/db"));
        assertThat(settings.literalPassword()).isNull();
        assertThat(ConnectionSettings.builder(1234).options(Configuration.fromMap(Map.of("hostname", "db",
                "username", "u", "password", "p")), PORT).build().port()).isEqualTo(1234);
        for (TlsMode mode : TlsMode.values()) {
            assertThat(Configuration.fromMap(Map.of("tls.mode", mode.toString())).get(ConnectionOptions.TLS_MODE))
                    .isEqualTo(mode);
        }
    }

    @Test
    void onlyOneSourceOfThePassword() {
        assertThatThrownBy(() -> ConnectionOptions.password(Configuration.fromMap(Map.of("password", "p",
                "password.file", "/f")))).isInstanceOf(CdcException.class)
                .hasMessage("Set only one of password, password.file: they all give the password");
        assertThat(ConnectionOptions.password(new Configuration())).isEmpty();
    }

    @Test
    void thePasswordNeverShowsAndALiteralOneIsKnownForMasking() {
        ConnectionSettings settings = valid().build();
        assertThat(settings.toString()).contains("cdc@db:1234", "password=******", "tls=require")
                .doesNotContain("s3cret-value");
        assertThat(settings.literalPassword()).isEqualTo(Secret.of("s3cret-value"));
        assertThat(settings).isEqualTo(valid().build()).isNotEqualTo(valid().port(1).build());
    }

    private static void assertConfigError(ConnectionSettings.Builder builder, String message) {
        assertThatThrownBy(builder::build).isInstanceOf(CdcException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.CONFIGURATION));
    }
}
