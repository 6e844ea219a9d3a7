package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.ConnectionConfig;
import io.rustcdc.flink.source.ConnectionConfigBuilder;
import io.rustcdc.flink.source.ConnectionSettings;
import io.rustcdc.flink.source.OptionChecks;
import io.rustcdc.flink.source.SecretProvider;
import java.io.Serializable;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ReadableConfig;

/**
 * How to reach one MySQL or MariaDB server as a binlog client; validated when built. The connection
 * (host, port, user, password, TLS) is a {@link ConnectionSettings}, checked as for every
 * connector; the password is a {@link SecretProvider}, resolved at each connection, and never
 * appears in {@code toString}. Immutable.
 *
 * <p>{@code server-id} has no default: two binlog clients with one id make the server drop one of
 * them, which shows only as a disconnect, so each source must be given an id of its own.
 */
@PublicEvolving
public final class MySqlSourceConfig implements ConnectionConfig, Serializable {
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
    public static final String ALLOW_PUBLIC_KEY_RETRIEVAL = "allow-public-key-retrieval";
    public static final String BINLOG_CHECK_INTERVAL = "binlog.check-interval";
    public static final String BINLOG_READ_TIMEOUT = "binlog.read-timeout";

    private static final long MAX_SERVER_ID = 4_294_967_295L;

    private final ServerFlavor flavor;
    private final ConnectionSettings connection;
    private final long serverId;
    private final ForeignKeyCascades foreignKeyCascades;
    private final boolean allowPublicKeyRetrieval;
    private final java.time.Duration binlogCheckInterval;
    private final java.time.Duration binlogReadTimeout;

    private MySqlSourceConfig(Builder b, ConnectionSettings connection) {
        this.flavor = b.flavor;
        this.connection = connection;
        this.serverId = b.serverId;
        this.foreignKeyCascades = b.foreignKeyCascades;
        this.allowPublicKeyRetrieval = b.allowPublicKeyRetrieval;
        this.binlogCheckInterval = b.binlogCheckInterval;
        this.binlogReadTimeout = b.binlogReadTimeout;
    }

    /** A builder for a source reading {@code flavor}: MySQL or MariaDB. */
    public static Builder builder(ServerFlavor flavor) {
        return new Builder(Objects.requireNonNull(flavor, "flavor"));
    }

    /**
     * A configuration from Flink options ({@link MySqlOptions}), for a server of {@code flavor}.
     * {@code password.env} and {@code password.file} are not read here but at each connection,
     * where the source runs.
     */
    public static MySqlSourceConfig fromConfiguration(ServerFlavor flavor, ReadableConfig options) {
        Builder b = builder(flavor).foreignKeyCascades(options.get(MySqlOptions.FOREIGN_KEY_CASCADES))
                .allowPublicKeyRetrieval(options.get(MySqlOptions.ALLOW_PUBLIC_KEY_RETRIEVAL))
                .binlogCheckInterval(options.get(MySqlOptions.BINLOG_CHECK_INTERVAL))
                .binlogReadTimeout(options.get(MySqlOptions.BINLOG_READ_TIMEOUT))
                .connectionOptions(options);
        options.getOptional(MySqlOptions.SERVER_ID).ifPresent(b::serverId);
        return b.build();
    }

    public ServerFlavor flavor() {
        return flavor;
    }

    @Override
    public ConnectionSettings connection() {
        return connection;
    }

    public long serverId() {
        return serverId;
    }

    public ForeignKeyCascades foreignKeyCascades() {
        return foreignKeyCascades;
    }

    /**
     * Whether a login without TLS may fetch the server's RSA public key to send the password encrypted
     * ({@code caching_sha2_password}, {@code sha256_password}), as {@value #ALLOW_PUBLIC_KEY_RETRIEVAL} says.
     */
    public boolean allowPublicKeyRetrieval() {
        return allowPublicKeyRetrieval;
    }

    /** How often the stream samples the server's binlog for its lag gauges ({@value #BINLOG_CHECK_INTERVAL}). */
    public java.time.Duration binlogCheckInterval() {
        return binlogCheckInterval;
    }

    /**
     * How long the binlog connection may get nothing, not even a heartbeat, before it counts as dead
     * ({@value #BINLOG_READ_TIMEOUT}); the server is asked for a heartbeat every sixth of it.
     */
    public java.time.Duration binlogReadTimeout() {
        return binlogReadTimeout;
    }

    /** How often the server sends a heartbeat on an idle binlog connection: a sixth of {@link #binlogReadTimeout()}. */
    public java.time.Duration binlogHeartbeat() {
        return binlogReadTimeout.dividedBy(6);
    }

    @Override
    public String toString() {
        return "MySqlSourceConfig{" + flavor + " " + connection.describe() + ", password=" + connection.password()
                + ", server-id=" + serverId + ", tls=" + connection.tlsMode() + "}";
    }

    private static CdcException configuration(String message) {
        return new CdcException(CdcException.Kind.CONFIGURATION, message);
    }

    /** Builds a {@link MySqlSourceConfig}; {@link #build()} says what is missing or wrong. */
    @PublicEvolving
    public static final class Builder extends ConnectionConfigBuilder<Builder> {
        private final ServerFlavor flavor;
        private long serverId;
        private ForeignKeyCascades foreignKeyCascades = ForeignKeyCascades.REFUSE;
        private boolean allowPublicKeyRetrieval;
        private java.time.Duration binlogCheckInterval = MySqlOptions.BINLOG_CHECK_INTERVAL.defaultValue();
        private java.time.Duration binlogReadTimeout = MySqlOptions.BINLOG_READ_TIMEOUT.defaultValue();

        private Builder(ServerFlavor flavor) {
            super(MySqlOptions.PORT);
            this.flavor = flavor;
        }

        /** The id this source uses as a binlog client: 1 to 4294967295, unique among the server's clients and replicas. */
        public Builder serverId(long serverId) {
            this.serverId = serverId;
            return this;
        }

        /** Whether tables whose foreign keys cascade are refused (the default) or captured without those changes. */
        public Builder foreignKeyCascades(ForeignKeyCascades cascades) {
            this.foreignKeyCascades = Objects.requireNonNull(cascades, "cascades");
            return this;
        }

        /**
         * Whether a login with {@code tls.mode = disable} may fetch the server's RSA public key over the
         * unencrypted connection (off by default: a man in the middle could hand over a key of its own).
         */
        public Builder allowPublicKeyRetrieval(boolean allow) {
            this.allowPublicKeyRetrieval = allow;
            return this;
        }

        /**
         * How often the streaming subtask samples the server's binlog (its end, sizes and GTIDs) for the lag
         * gauges, 1 s to 10 min; default 10 s.
         */
        public Builder binlogCheckInterval(java.time.Duration interval) {
            this.binlogCheckInterval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /**
         * How long the binlog connection may get nothing from the server, not even a heartbeat (asked for
         * every sixth of it), before it counts as dead and the stream fails to be retried: 3 s to 10 min;
         * default 30 s.
         */
        public Builder binlogReadTimeout(java.time.Duration timeout) {
            this.binlogReadTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** @throws CdcException of kind CONFIGURATION naming the option to fix */
        public MySqlSourceConfig build() {
            ConnectionSettings settings = buildConnection();
            if (serverId == 0) {
                throw configuration("Option '" + SERVER_ID + "' is required and has no default: give each source "
                        + "an id of its own, 1 to " + MAX_SERVER_ID + ", that no replica or other binlog client of "
                        + "the server uses (two clients with one id make the server drop one of them)");
            }
            OptionChecks.requireRange(SERVER_ID, serverId, 1, MAX_SERVER_ID);
            OptionChecks.requireDuration(BINLOG_CHECK_INTERVAL, binlogCheckInterval, java.time.Duration.ofSeconds(1),
                    java.time.Duration.ofMinutes(10), "1 s to 10 min");
            OptionChecks.requireDuration(BINLOG_READ_TIMEOUT, binlogReadTimeout, java.time.Duration.ofSeconds(3),
                    java.time.Duration.ofMinutes(10), "3 s to 10 min");
            return new MySqlSourceConfig(this, settings);
        }
    }
}
