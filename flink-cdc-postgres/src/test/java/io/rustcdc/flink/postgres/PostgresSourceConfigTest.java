package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.TlsMode;
import java.nio.file.Files;
import java.nio.file.Path;
import io.rustcdc.flink.source.model.TableId;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PostgresSourceConfigTest {

    private static PostgresSourceConfig.Builder valid() {
        return PostgresSourceConfig.builder().hostname("db").database("shop").username("cdc").password(Secret.of("s3cret"));
    }

    @Test
    void tlsIsOnByDefaultAndThePasswordNeverShows() {
        PostgresSourceConfig config = valid().build();
        assertThat(config.tlsMode()).isEqualTo(TlsMode.REQUIRE);
        assertThat(config.port()).isEqualTo(5432);
        assertThat(config.toString()).doesNotContain("s3cret").contains("******");
    }

    @Test
    void eachMissingOrWrongOptionIsNamed() {
        assertConfigError(PostgresSourceConfig.builder().database("d").username("u").password(Secret.of("p")), "'hostname'");
        assertConfigError(valid().password(null), "No password");
        assertConfigError(valid().port(0), "'port' must be 1 to 65535");
        assertConfigError(valid().slotName("Bad-Name"), "'slot.name' must be 1 to 63 characters");
        assertConfigError(valid().slotName("s").failoverSlot(true), "'slot.failover' applies only");
        assertConfigError(valid().tlsMode(TlsMode.VERIFY_FULL), "set 'tls.root-cert'");
        assertConfigError(valid().connectTimeout(Duration.ZERO), "'connect.timeout' must be 1 s to 300 s");
        assertConfigError(valid().statusInterval(Duration.ofHours(1)), "'status.interval'");
        assertConfigError(valid().slotCheckInterval(Duration.ofMillis(500)), "'slot.check-interval' must be 1 s to 10 min");
        assertThatThrownBy(() -> valid().build().requireStreaming()).hasMessageContaining("'slot.name' is required");
        assertThatThrownBy(() -> valid().slotName("s").build().requireStreaming())
                .hasMessageContaining("'publication.name' is required");
    }

    @Test
    void readsFlinkOptionsIncludingTlsModesByTheirSqlNames() {
        Configuration options = Configuration.fromMap(Map.of("hostname", "db", "database-name", "shop", "username", "cdc",
                "password", "pw", "tls.mode", "verify-full", "tls.root-cert", "/ca.pem", "slot.name", "shop_cdc",
                "publication.name", "shop_cdc", "connect.timeout", "5 s"));
        PostgresSourceConfig config = PostgresSourceConfig.fromConfiguration(options);
        assertThat(config.tlsMode()).isEqualTo(TlsMode.VERIFY_FULL);
        assertThat(config.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.slotName()).isEqualTo("shop_cdc");
        assertThat(config.password().resolve().reveal()).isEqualTo("pw");
    }

    @Test
    void toastReselectAndTheColumnsRequiredInUpdates() {
        Configuration options = Configuration.fromMap(Map.of("hostname", "db", "database-name", "shop", "username", "cdc",
                "password", "pw", "toast.reselect", "true"));
        assertThat(PostgresSourceConfig.fromConfiguration(options).toastReselect()).isTrue();
        assertThat(valid().build().toastReselect()).isFalse();
        TableId orders = TableId.of("shop", "public", "orders");
        PostgresSourceConfig config = PostgresSourceConfig.builder(options)
                .requireInUpdates(orders, List.of("id", "note"), "the Flink table t").build();
        assertThat(config.requiredInUpdates(orders))
                .isEqualTo(new PostgresSourceConfig.RequiredInUpdates(List.of("id", "note"), "the Flink table t"));
        assertThat(config.requiredInUpdates(TableId.of("shop", "public", "other"))).isNull();
        assertThat(config).isNotEqualTo(PostgresSourceConfig.fromConfiguration(options))
                .isEqualTo(PostgresSourceConfig.builder(options)
                        .requireInUpdates(orders, List.of("id", "note"), "the Flink table t").build());
        assertThat(config.toString()).contains("toast.reselect").contains("note").doesNotContain("pw");
    }

    @Test
    void aPasswordFileOrVariableIsOnlyNamedWhenTheConfigIsBuiltAndReadAtEachConnection(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("pw");
        Configuration options = Configuration.fromMap(Map.of("hostname", "db", "database-name", "shop", "username", "cdc",
                "password.file", file.toString()));
        PostgresSourceConfig config = PostgresSourceConfig.fromConfiguration(options); // the file does not exist yet
        assertThat(config.toString()).contains("password=file:" + file);
        Files.writeString(file, "first\n");
        assertThat(config.password().resolve().reveal()).isEqualTo("first");
        Files.writeString(file, "second");
        assertThat(config.password().resolve().reveal()).isEqualTo("second");

        PostgresSourceConfig fromEnv = PostgresSourceConfig.fromConfiguration(Configuration.fromMap(Map.of("hostname",
                "db", "database-name", "shop", "username", "cdc", "password.env", "RUSTCDC_TEST_UNSET_VARIABLE")));
        assertThat(fromEnv.toString()).contains("password=env:RUSTCDC_TEST_UNSET_VARIABLE");
        assertThatThrownBy(() -> fromEnv.password().resolve()).isInstanceOf(CdcException.class)
                .hasMessageContaining("RUSTCDC_TEST_UNSET_VARIABLE").hasMessageContaining("is not set");
    }

    @Test
    void onlyOneSourceOfThePassword() {
        Configuration options = Configuration.fromMap(Map.of("hostname", "db", "database-name", "shop", "username", "cdc",
                "password", "pw", "password.env", "PATH"));
        assertThatThrownBy(() -> PostgresSourceConfig.fromConfiguration(options))
                .hasMessageContaining("Set only one of password, password.env");
    }

    private static void assertConfigError(PostgresSourceConfig.Builder builder, String message) {
        assertThatThrownBy(builder::build).isInstanceOf(CdcException.class).hasMessageContaining(message)
                .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.CONFIGURATION));
    }
}
