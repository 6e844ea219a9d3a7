package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.ConnectionConfig;
import io.rustcdc.flink.source.ConnectionConfigBuilder;
import io.rustcdc.flink.source.ConnectionSettings;
import io.rustcdc.flink.source.OptionChecks;
import io.rustcdc.flink.source.SecretProvider;
import java.io.Serializable;
import io.rustcdc.flink.source.model.TableId;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ReadableConfig;

/**
 * How to reach and capture one PostgreSQL database; validated when built. The connection (host,
 * port, user, password, TLS) is a {@link ConnectionSettings}, checked as for every connector; the
 * password is a {@link SecretProvider}, resolved at each connection, and never appears in {@code
 * toString}. Immutable.
 *
 * <pre>{@code
 * PostgresSourceConfig config = PostgresSourceConfig.builder()
 *         .hostname("db.internal").database("shop")
 *         .username("cdc").password(SecretProvider.environment("PGPASSWORD"))
 *         .slotName("shop_cdc").publicationName("shop_cdc")
 *         .build();
 * }</pre>
 */
@PublicEvolving
public final class PostgresSourceConfig implements ConnectionConfig, Serializable {
    private static final long serialVersionUID = 1L;
    private static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
    private static final Duration MAX_INTERVAL = Duration.ofMinutes(10);

    private final ConnectionSettings connection;
    private final String database;
    @Nullable private final String slotName;
    private final boolean createSlotIfMissing;
    private final boolean failoverSlot;
    @Nullable private final String publicationName;
    private final boolean createPublicationIfMissing;
    private final boolean captureLogicalMessages;
    private final Duration statusInterval;
    private final Duration slotCheckInterval;
    private final boolean toastReselect;
    private final WalTransport walTransport;
    private final Map<TableId, RequiredInUpdates> requiredInUpdates;

    private PostgresSourceConfig(Builder b, ConnectionSettings connection) {
        this.connection = connection;
        this.database = b.database;
        this.slotName = b.slotName;
        this.createSlotIfMissing = b.createSlotIfMissing;
        this.failoverSlot = b.failoverSlot;
        this.publicationName = b.publicationName;
        this.createPublicationIfMissing = b.createPublicationIfMissing;
        this.captureLogicalMessages = b.captureLogicalMessages;
        this.statusInterval = b.statusInterval;
        this.slotCheckInterval = b.slotCheckInterval;
        this.toastReselect = b.toastReselect;
        this.walTransport = b.walTransport;
        this.requiredInUpdates = Map.copyOf(b.requiredInUpdates);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A config from options named as in {@link PostgresOptions}. {@code password.env} and {@code
     * password.file} are not read here but at each connection, where the source runs.
     */
    public static PostgresSourceConfig fromConfiguration(ReadableConfig options) {
        return builder(options).build();
    }

    /** A builder set from options named as in {@link PostgresOptions}, as {@link #fromConfiguration} reads them. */
    public static Builder builder(ReadableConfig options) {
        return builder().connectionOptions(options).database(options.get(PostgresOptions.DATABASE_NAME))
                .slotName(options.get(PostgresOptions.SLOT_NAME))
                .createSlotIfMissing(options.get(PostgresOptions.SLOT_CREATE_IF_MISSING))
                .failoverSlot(options.get(PostgresOptions.SLOT_FAILOVER))
                .publicationName(options.get(PostgresOptions.PUBLICATION_NAME))
                .createPublicationIfMissing(options.get(PostgresOptions.PUBLICATION_CREATE_IF_MISSING))
                .captureLogicalMessages(options.get(PostgresOptions.CAPTURE_LOGICAL_MESSAGES))
                .statusInterval(options.get(PostgresOptions.STATUS_INTERVAL))
                .slotCheckInterval(options.get(PostgresOptions.SLOT_CHECK_INTERVAL))
                .toastReselect(options.get(PostgresOptions.TOAST_RESELECT))
                .walTransport(WalTransport.parse(options.get(PostgresOptions.WAL_TRANSPORT)));
    }

    @Override
    public ConnectionSettings connection() {
        return connection;
    }

    public String database() {
        return database;
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

    public boolean captureLogicalMessages() {
        return captureLogicalMessages;
    }

    public Duration statusInterval() {
        return statusInterval;
    }

    /** How often the stream's slot is sampled and checked ({@code slot.check-interval}). */
    public Duration slotCheckInterval() {
        return slotCheckInterval;
    }

    /** How the stream reads the slot ({@code wal.transport}). */
    public WalTransport walTransport() {
        return walTransport;
    }

    /** Whether unchanged TOASTed values an update does not send are read from the table ({@code toast.reselect}). */
    public boolean toastReselect() {
        return toastReselect;
    }

    /**
     * The columns of {@code table} that every update must carry in its new row, and who needs them;
     * null when none are required.
     */
    @Nullable
    public RequiredInUpdates requiredInUpdates(TableId table) {
        return requiredInUpdates.get(table);
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
        return connection.equals(c.connection) && database.equals(c.database) && Objects.equals(slotName, c.slotName)
                && createSlotIfMissing == c.createSlotIfMissing && failoverSlot == c.failoverSlot
                && Objects.equals(publicationName, c.publicationName)
                && createPublicationIfMissing == c.createPublicationIfMissing
                && captureLogicalMessages == c.captureLogicalMessages && statusInterval.equals(c.statusInterval)
                && slotCheckInterval.equals(c.slotCheckInterval) && toastReselect == c.toastReselect
                && walTransport == c.walTransport
                && requiredInUpdates.equals(c.requiredInUpdates);
    }

    @Override
    public int hashCode() {
        return Objects.hash(connection, database, slotName, publicationName);
    }

    @Override
    public String toString() {
        return "PostgresSourceConfig{" + connection.describe() + "/" + database + ", password="
                + connection.password() + ", slot=" + slotName + (createSlotIfMissing ? " (create if missing)" : "")
                + (failoverSlot ? " (failover)" : "") + ", publication=" + publicationName
                + (createPublicationIfMissing ? " (create if missing)" : "") + ", tls=" + connection.tlsMode()
                + ", logicalMessages=" + captureLogicalMessages + (toastReselect ? ", toast.reselect" : "")
                + (walTransport == WalTransport.STREAMING ? "" : ", wal.transport=" + walTransport.text())
                + (requiredInUpdates.isEmpty() ? "" : ", requiredInUpdates=" + requiredInUpdates) + "}";
    }

    private static CdcException configuration(String message) {
        return new CdcException(CdcException.Kind.CONFIGURATION, message);
    }

    /** Builds a {@link PostgresSourceConfig}; {@link #build()} says what is missing or wrong. */
    @PublicEvolving
    public static final class Builder extends ConnectionConfigBuilder<Builder> {
        private String database;
        private String slotName;
        private boolean createSlotIfMissing;
        private boolean failoverSlot;
        private String publicationName;
        private boolean createPublicationIfMissing;
        private boolean captureLogicalMessages;
        private Duration statusInterval = PostgresOptions.STATUS_INTERVAL.defaultValue();
        private Duration slotCheckInterval = PostgresOptions.SLOT_CHECK_INTERVAL.defaultValue();
        private boolean toastReselect;
        private WalTransport walTransport = WalTransport.STREAMING;
        private final Map<TableId, RequiredInUpdates> requiredInUpdates = new LinkedHashMap<>();

        private Builder() {
            super(PostgresOptions.PORT);
        }

        public Builder database(String database) {
            this.database = database;
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

        public Builder captureLogicalMessages(boolean capture) {
            this.captureLogicalMessages = capture;
            return this;
        }

        public Builder statusInterval(Duration interval) {
            this.statusInterval = interval;
            return this;
        }

        /** How often the stream's slot is sampled and checked, 1 s to 10 min; default 10 s. */
        public Builder slotCheckInterval(Duration interval) {
            this.slotCheckInterval = interval;
            return this;
        }

        /**
         * Whether an update's unchanged TOASTed values, which PostgreSQL sends only under REPLICA
         * IDENTITY FULL, are read from the table by the row's key ({@code toast.reselect}); default false,
         * which leaves them absent from the event's new row, listed in its unchanged columns.
         */
        public Builder toastReselect(boolean reselect) {
            this.toastReselect = reselect;
            return this;
        }

        /** How the stream reads the slot ({@code wal.transport}); default {@link WalTransport#STREAMING}. */
        public Builder walTransport(WalTransport transport) {
            this.walTransport = Objects.requireNonNull(transport, "transport");
            return this;
        }

        /**
         * Requires every update of {@code table} to carry {@code columns} in its new row: the stream's
         * start refuses the table when an update could leave one of them out (a column that can be
         * TOASTed, neither part of the replica identity nor filled by REPLICA IDENTITY FULL or {@link
         * #toastReselect}), naming the columns, {@code neededBy} (who needs them, for the message, e.g.
         * {@code "the Flink table t"}) and the remedies.
         */
        public Builder requireInUpdates(TableId table, Collection<String> columns, String neededBy) {
            requiredInUpdates.put(Objects.requireNonNull(table, "table"),
                    new RequiredInUpdates(List.copyOf(columns), Objects.requireNonNull(neededBy, "neededBy")));
            return this;
        }

        /** @throws CdcException of kind CONFIGURATION naming the option to fix */
        public PostgresSourceConfig build() {
            ConnectionSettings settings = buildConnection();
            OptionChecks.requireValue(PostgresOptions.DATABASE_NAME.key(), database);
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
            requireInterval(PostgresOptions.STATUS_INTERVAL.key(), statusInterval);
            requireInterval(PostgresOptions.SLOT_CHECK_INTERVAL.key(), slotCheckInterval);
            return new PostgresSourceConfig(this, settings);
        }

        private static void requireInterval(String option, Duration interval) {
            OptionChecks.requireDuration(option, interval, MIN_INTERVAL, MAX_INTERVAL, "1 s to 10 min");
        }
    }

    /**
     * Columns every update of a table must carry in its new row, and who needs them (for messages).
     *
     * @param columns the column names
     * @param neededBy who needs them, e.g. {@code "the Flink table t"}
     */
    @PublicEvolving
    public record RequiredInUpdates(List<String> columns, String neededBy) implements Serializable {}
}
