package io.rustcdc.flink.postgres;

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
 * How to reach and capture one PostgreSQL database; validated when built. The password is a
 * {@link Secret} and never appears in {@code toString}. Immutable.
 *
 * <pre>{@code
 * PostgresSourceConfig config = PostgresSourceConfig.builder()
 *         .hostname("db.internal").database("shop")
 *         .username("cdc").password(Secret.fromEnvironment("PGPASSWORD"))
 *         .slotName("shop_cdc").publicationName("shop_cdc")
 *         .build();
 * }</pre>
 */
@PublicEvolving
public final class PostgresSourceConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String hostname;
    private final int port;
    private final String database;
    private final String username;
    private final Secret password;
    @Nullable private final String slotName;
    private final boolean createSlotIfMissing;
    private final boolean failoverSlot;
    @Nullable private final String publicationName;
    private final boolean createPublicationIfMissing;
    private final TlsMode tlsMode;
    @Nullable private final String tlsRootCert;
    private final Duration connectTimeout;
    private final boolean captureLogicalMessages;
    private final Duration statusInterval;

    private PostgresSourceConfig(Builder b) {
        this.hostname = b.hostname;
        this.port = b.port;
        this.database = b.database;
        this.username = b.username;
        this.password = b.password;
        this.slotName = b.slotName;
        this.createSlotIfMissing = b.createSlotIfMissing;
        this.failoverSlot = b.failoverSlot;
        this.publicationName = b.publicationName;
        this.createPublicationIfMissing = b.createPublicationIfMissing;
        this.tlsMode = b.tlsMode;
        this.tlsRootCert = b.tlsRootCert;
        this.connectTimeout = b.connectTimeout;
        this.captureLogicalMessages = b.captureLogicalMessages;
        this.statusInterval = b.statusInterval;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A config from options named as in {@link PostgresOptions}. */
    public static PostgresSourceConfig fromConfiguration(ReadableConfig options) {
        Builder b = builder()
                .hostname(options.get(PostgresOptions.HOSTNAME))
                .port(options.get(PostgresOptions.PORT))
                .database(options.get(PostgresOptions.DATABASE_NAME))
                .username(options.get(PostgresOptions.USERNAME))
                .slotName(options.get(PostgresOptions.SLOT_NAME))
                .createSlotIfMissing(options.get(PostgresOptions.SLOT_CREATE_IF_MISSING))
                .failoverSlot(options.get(PostgresOptions.SLOT_FAILOVER))
                .publicationName(options.get(PostgresOptions.PUBLICATION_NAME))
                .createPublicationIfMissing(options.get(PostgresOptions.PUBLICATION_CREATE_IF_MISSING))
                .tlsMode(options.get(PostgresOptions.TLS_MODE))
                .tlsRootCert(options.get(PostgresOptions.TLS_ROOT_CERT))
                .connectTimeout(options.get(PostgresOptions.CONNECT_TIMEOUT))
                .captureLogicalMessages(options.get(PostgresOptions.CAPTURE_LOGICAL_MESSAGES))
                .statusInterval(options.get(PostgresOptions.STATUS_INTERVAL));
        ConnectionOptions.password(options).ifPresent(b::password);
        return b.build();
    }

    public String hostname() {
        return hostname;
    }

    public int port() {
        return port;
    }

    public String database() {
        return database;
    }

    public String username() {
        return username;
    }

    public Secret password() {
        return password;
    }

    /** The replication slot, or null for a source that only snapshots. */
    @Nullable
    public String slotName() {
        return slotName;
    }

    public boolean createSlotIfMissing() {
        return createSlotIfMissing;
    }

    public boolean failoverSlot() {
        return failoverSlot;
    }

    /** The publication, or null for a source that only snapshots. */
    @Nullable
    public String publicationName() {
        return publicationName;
    }

    public boolean createPublicationIfMissing() {
        return createPublicationIfMissing;
    }

    public TlsMode tlsMode() {
        return tlsMode;
    }

    @Nullable
    public String tlsRootCert() {
        return tlsRootCert;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public boolean captureLogicalMessages() {
        return captureLogicalMessages;
    }

    public Duration statusInterval() {
        return statusInterval;
    }

    /** Fails unless a slot and a publication are configured, which streaming needs. */
    public void requireStreaming() {
        if (slotName == null) {
            throw configuration("Option '" + PostgresOptions.SLOT_NAME.key() + "' is required to stream changes: "
                    + "name the logical replication slot this source reads");
        }
        if (publicationName == null) {
            throw configuration("Option '" + PostgresOptions.PUBLICATION_NAME.key() + "' is required to stream "
                    + "changes: name the publication of the captured tables");
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PostgresSourceConfig)) {
            return false;
        }
        PostgresSourceConfig c = (PostgresSourceConfig) o;
        return hostname.equals(c.hostname) && port == c.port && database.equals(c.database)
                && username.equals(c.username) && password.equals(c.password) && Objects.equals(slotName, c.slotName)
                && createSlotIfMissing == c.createSlotIfMissing && failoverSlot == c.failoverSlot
                && Objects.equals(publicationName, c.publicationName)
                && createPublicationIfMissing == c.createPublicationIfMissing && tlsMode == c.tlsMode
                && Objects.equals(tlsRootCert, c.tlsRootCert) && connectTimeout.equals(c.connectTimeout)
                && captureLogicalMessages == c.captureLogicalMessages && statusInterval.equals(c.statusInterval);
    }

    @Override
    public int hashCode() {
        return Objects.hash(hostname, port, database, username, slotName, publicationName);
    }

    @Override
    public String toString() {
        return "PostgresSourceConfig{" + username + "@" + hostname + ":" + port + "/" + database
                + ", password=" + password + ", slot=" + slotName + (createSlotIfMissing ? " (create if missing)" : "")
                + (failoverSlot ? " (failover)" : "") + ", publication=" + publicationName
                + (createPublicationIfMissing ? " (create if missing)" : "") + ", tls=" + tlsMode
                + ", logicalMessages=" + captureLogicalMessages + "}";
    }

    private static CdcException configuration(String message) {
        return new CdcException(CdcException.Kind.CONFIGURATION, message);
    }

    /** Builds a {@link PostgresSourceConfig}; {@link #build()} says what is missing or wrong. */
    @PublicEvolving
    public static final class Builder {
        private String hostname;
        private int port = PostgresOptions.PORT.defaultValue();
        private String database;
        private String username;
        private Secret password;
        private String slotName;
        private boolean createSlotIfMissing;
        private boolean failoverSlot;
        private String publicationName;
        private boolean createPublicationIfMissing;
        private TlsMode tlsMode = PostgresOptions.TLS_MODE.defaultValue();
        private String tlsRootCert;
        private Duration connectTimeout = PostgresOptions.CONNECT_TIMEOUT.defaultValue();
        private boolean captureLogicalMessages;
        private Duration statusInterval = PostgresOptions.STATUS_INTERVAL.defaultValue();

        private Builder() {}

        public Builder hostname(String hostname) {
            this.hostname = hostname;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder database(String database) {
            this.database = database;
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

        public Builder slotName(@Nullable String slotName) {
            this.slotName = slotName;
            return this;
        }

        public Builder createSlotIfMissing(boolean create) {
            this.createSlotIfMissing = create;
            return this;
        }

        public Builder failoverSlot(boolean failover) {
            this.failoverSlot = failover;
            return this;
        }

        public Builder publicationName(@Nullable String publicationName) {
            this.publicationName = publicationName;
            return this;
        }

        public Builder createPublicationIfMissing(boolean create) {
            this.createPublicationIfMissing = create;
            return this;
        }

        public Builder tlsMode(TlsMode tlsMode) {
            this.tlsMode = tlsMode;
            return this;
        }

        public Builder tlsRootCert(@Nullable String path) {
            this.tlsRootCert = path;
            return this;
        }

        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        public Builder captureLogicalMessages(boolean capture) {
            this.captureLogicalMessages = capture;
            return this;
        }

        public Builder statusInterval(Duration interval) {
            this.statusInterval = interval;
            return this;
        }

        /** @throws CdcException of kind CONFIGURATION naming the option to fix */
        public PostgresSourceConfig build() {
            require(hostname, PostgresOptions.HOSTNAME.key());
            require(database, PostgresOptions.DATABASE_NAME.key());
            require(username, PostgresOptions.USERNAME.key());
            if (password == null) {
                throw configuration("No password: set '" + PostgresOptions.PASSWORD.key() + "', '"
                        + PostgresOptions.PASSWORD_ENV.key() + "' or '" + PostgresOptions.PASSWORD_FILE.key() + "'");
            }
            if (port < 1 || port > 65535) {
                throw configuration("Option '" + PostgresOptions.PORT.key() + "' must be 1 to 65535, not " + port);
            }
            if (slotName != null && !slotName.matches("[a-z0-9_]{1,63}")) {
                throw configuration("Option '" + PostgresOptions.SLOT_NAME.key() + "' must be 1 to 63 characters of "
                        + "lower-case letters, digits and underscores (PostgreSQL's rule for slot names), not '"
                        + slotName + "'");
            }
            if (failoverSlot && !createSlotIfMissing) {
                throw configuration("Option '" + PostgresOptions.SLOT_FAILOVER.key() + "' applies only to a slot this "
                        + "connector creates: also set '" + PostgresOptions.SLOT_CREATE_IF_MISSING.key()
                        + "', or create the slot with failover yourself");
            }
            if ((tlsMode == TlsMode.VERIFY_CA || tlsMode == TlsMode.VERIFY_FULL) && tlsRootCert == null) {
                throw configuration("Option '" + PostgresOptions.TLS_MODE.key() + "' = " + tlsMode + " verifies the "
                        + "server's certificate: set '" + PostgresOptions.TLS_ROOT_CERT.key() + "' to the CA certificate");
            }
            if (connectTimeout.compareTo(Duration.ofSeconds(1)) < 0 || connectTimeout.compareTo(Duration.ofSeconds(300)) > 0) {
                throw configuration("Option '" + PostgresOptions.CONNECT_TIMEOUT.key() + "' must be 1 s to 300 s, not "
                        + connectTimeout);
            }
            if (statusInterval.compareTo(Duration.ofSeconds(1)) < 0 || statusInterval.compareTo(Duration.ofMinutes(10)) > 0) {
                throw configuration("Option '" + PostgresOptions.STATUS_INTERVAL.key() + "' must be 1 s to 10 min, not "
                        + statusInterval);
            }
            return new PostgresSourceConfig(this);
        }

        private static void require(String value, String option) {
            if (value == null || value.isBlank()) {
                throw configuration("Option '" + option + "' is required");
            }
        }
    }
}
