package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.ConnectionOptions;
import io.rustcdc.flink.source.Secret;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ReadableConfig;

/**
 * How to reach one MySQL or MariaDB server as a binlog client; validated when built. The password
 * is a {@link Secret} and never appears in {@code toString}. Immutable.
 *
 * <p>{@code server-id} has no default: two binlog clients with one id make the server drop one of
 * them, which shows only as a disconnect, so each source must be given an id of its own.
 */
@PublicEvolving
public final class MySqlSourceConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    public static final String HOSTNAME = "hostname";
    public static final String PORT = "port";
    public static final String USERNAME = "username";
    public static final String PASSWORD = "password";
    public static final String SERVER_ID = "server-id";
    public static final String TLS_MODE = "tls.mode";
    public static final String TLS_ROOT_CERT = "tls.root-cert";
    public static final String CONNECT_TIMEOUT = "connect.timeout";
    public static final String FOREIGN_KEY_CASCADES = "foreign-key-cascades";

    private static final long MAX_SERVER_ID = 4_294_967_295L;

    private final ServerFlavor flavor;
    private final String hostname;
    private final int port;
    private final String username;
    private final Secret password;
    private final long serverId;
    private final MySqlTlsMode tlsMode;
    @Nullable private final String tlsRootCert;
    private final Duration connectTimeout;
    private final ForeignKeyCascades foreignKeyCascades;

    private MySqlSourceConfig(Builder b) {
        this.flavor = b.flavor;
        this.hostname = b.hostname;
        this.port = b.port;
        this.username = b.username;
        this.password = b.password;
        this.serverId = b.serverId;
        this.tlsMode = b.tlsMode;
        this.tlsRootCert = b.tlsRootCert;
        this.connectTimeout = b.connectTimeout;
        this.foreignKeyCascades = b.foreignKeyCascades;
    }

    /** A builder for a source reading {@code flavor}: MySQL or MariaDB. */
    public static Builder builder(ServerFlavor flavor) {
        return new Builder(Objects.requireNonNull(flavor, "flavor"));
    }

    /** A configuration from Flink options ({@link MySqlOptions}), for a server of {@code flavor}. */
    public static MySqlSourceConfig fromConfiguration(ServerFlavor flavor, ReadableConfig options) {
        Builder b = builder(flavor)
                .hostname(options.get(MySqlOptions.HOSTNAME))
                .port(options.get(MySqlOptions.PORT))
                .username(options.get(MySqlOptions.USERNAME))
                .tlsMode(options.get(MySqlOptions.TLS_MODE))
                .tlsRootCert(options.get(MySqlOptions.TLS_ROOT_CERT))
                .connectTimeout(options.get(MySqlOptions.CONNECT_TIMEOUT))
                .foreignKeyCascades(options.get(MySqlOptions.FOREIGN_KEY_CASCADES));
        options.getOptional(MySqlOptions.SERVER_ID).ifPresent(b::serverId);
        ConnectionOptions.password(options).ifPresent(b::password);
        return b.build();
    }

    public ServerFlavor flavor() {
        return flavor;
    }

    public String hostname() {
        return hostname;
    }

    public int port() {
        return port;
    }

    public String username() {
        return username;
    }

    public Secret password() {
        return password;
    }

    public long serverId() {
        return serverId;
    }

    public MySqlTlsMode tlsMode() {
        return tlsMode;
    }

    @Nullable
    public String tlsRootCert() {
        return tlsRootCert;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public ForeignKeyCascades foreignKeyCascades() {
        return foreignKeyCascades;
    }

    @Override
    public String toString() {
        return "MySqlSourceConfig{" + flavor + " " + username + "@" + hostname + ":" + port + ", password=" + password
                + ", server-id=" + serverId + ", tls=" + tlsMode + "}";
    }

    private static CdcException configuration(String message) {
        return new CdcException(CdcException.Kind.CONFIGURATION, message);
    }

    /** Builds a {@link MySqlSourceConfig}; {@link #build()} says what is missing or wrong. */
    @PublicEvolving
    public static final class Builder {
        private final ServerFlavor flavor;
        private String hostname;
        private int port = 3306;
        private String username;
        private Secret password;
        private long serverId;
        private MySqlTlsMode tlsMode = MySqlTlsMode.REQUIRE;
        private String tlsRootCert;
        private Duration connectTimeout = Duration.ofSeconds(30);
        private ForeignKeyCascades foreignKeyCascades = ForeignKeyCascades.REFUSE;

        private Builder(ServerFlavor flavor) {
            this.flavor = flavor;
        }

        public Builder hostname(String hostname) {
            this.hostname = hostname;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder username(String username) {
            this.username = username;
            return this;
        }

        public Builder password(Secret password) {
            this.password = password;
            return this;
        }

        /** The id this source uses as a binlog client: 1 to 4294967295, unique among the server's clients and replicas. */
        public Builder serverId(long serverId) {
            this.serverId = serverId;
            return this;
        }

        /** TLS to the server: {@code REQUIRE} (encrypted) by default; {@code DISABLE} only when chosen. */
        public Builder tlsMode(MySqlTlsMode tlsMode) {
            this.tlsMode = Objects.requireNonNull(tlsMode, "tlsMode");
            return this;
        }

        /** The CA certificate file for {@code VERIFY_CA} and {@code VERIFY_FULL}. */
        public Builder tlsRootCert(@Nullable String path) {
            this.tlsRootCert = path;
            return this;
        }

        /** Whether tables whose foreign keys cascade are refused (the default) or captured without those changes. */
        public Builder foreignKeyCascades(ForeignKeyCascades cascades) {
            this.foreignKeyCascades = Objects.requireNonNull(cascades, "cascades");
            return this;
        }

        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** @throws CdcException of kind CONFIGURATION naming the option to fix */
        public MySqlSourceConfig build() {
            require(hostname, HOSTNAME);
            require(username, USERNAME);
            if (password == null) {
                throw configuration("No password: set '" + PASSWORD + "'");
            }
            if (port < 1 || port > 65535) {
                throw configuration("Option '" + PORT + "' must be 1 to 65535, not " + port);
            }
            if (serverId == 0) {
                throw configuration("Option '" + SERVER_ID + "' is required and has no default: give each source "
                        + "an id of its own, 1 to " + MAX_SERVER_ID + ", that no replica or other binlog client of "
                        + "the server uses (two clients with one id make the server drop one of them)");
            }
            if (serverId < 1 || serverId > MAX_SERVER_ID) {
                throw configuration("Option '" + SERVER_ID + "' must be 1 to " + MAX_SERVER_ID + ", not " + serverId);
            }
            if (connectTimeout.compareTo(Duration.ofSeconds(1)) < 0 || connectTimeout.compareTo(Duration.ofSeconds(300)) > 0) {
                throw configuration("Option '" + CONNECT_TIMEOUT + "' must be 1 s to 300 s, not " + connectTimeout);
            }
            return new MySqlSourceConfig(this);
        }

        private static void require(String value, String option) {
            if (value == null || value.isBlank()) {
                throw configuration("Option '" + option + "' is required");
            }
        }
    }
}
