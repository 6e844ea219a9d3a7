package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.ConnectionConfig;
import io.rustcdc.flink.source.ConnectionConfigBuilder;
import io.rustcdc.flink.source.ConnectionOptions;
import io.rustcdc.flink.source.ConnectionSettings;
import io.rustcdc.flink.source.OptionChecks;
import java.io.Serializable;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ReadableConfig;

/**
 * How to reach one SQL Server database and read its change tables; validated when built. The
 * connection (host, port, user, password, TLS) is a {@link ConnectionSettings}; the password is
 * resolved at each connection and never appears in {@code toString}. Immutable.
 */
@PublicEvolving
public final class SqlServerSourceConfig implements ConnectionConfig, Serializable {
    private static final long serialVersionUID = 1L;

    public static final String PORT = "port";
    public static final String CDC_SCHEMA = "cdc.schema";
    public static final String POLL_INTERVAL = "stream.poll-interval";
    public static final String MAX_EVENTS_PER_POLL = "stream.max-events-per-poll";
    public static final String CAPTURE_TRUNCATE_EVENTS = "capture-truncate-events";
    public static final String SERVER_TIME_ZONE = "server-time-zone";
    public static final String METRICS_INTERVAL = "stream.metrics-interval";

    private static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(1);
    private static final Duration MAX_POLL_INTERVAL = Duration.ofSeconds(60);
    private static final int MAX_PAGE = 100_000;
    private static final Duration MIN_METRICS_INTERVAL = Duration.ofSeconds(1);
    private static final Duration MAX_METRICS_INTERVAL = Duration.ofMinutes(10);

    private final ConnectionSettings connection;
    private final String database;
    private final String cdcSchema;
    private final Duration pollInterval;
    private final int maxEventsPerPoll;
    @Nullable private final ZoneOffset serverTimeZone;
    private final Duration metricsInterval;

    private SqlServerSourceConfig(Builder b, ConnectionSettings connection, @Nullable ZoneOffset serverTimeZone) {
        this.connection = connection;
        this.database = b.database;
        this.cdcSchema = b.cdcSchema;
        this.pollInterval = b.pollInterval;
        this.maxEventsPerPoll = b.maxEventsPerPoll;
        this.serverTimeZone = serverTimeZone;
        this.metricsInterval = b.metricsInterval;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A configuration from Flink options ({@link SqlServerOptions}); password files and variables are read at each
     * connection.
     */
    public static SqlServerSourceConfig fromConfiguration(ReadableConfig options) {
        Builder b = builder().cdcSchema(options.get(SqlServerOptions.CDC_SCHEMA))
                .pollInterval(options.get(SqlServerOptions.POLL_INTERVAL))
                .maxEventsPerPoll(options.get(SqlServerOptions.MAX_EVENTS_PER_POLL))
                .captureTruncateEvents(options.get(SqlServerOptions.CAPTURE_TRUNCATE_EVENTS))
                .metricsInterval(options.get(SqlServerOptions.METRICS_INTERVAL))
                .connectionOptions(options);
        options.getOptional(SqlServerOptions.DATABASE_NAME).ifPresent(b::database);
        options.getOptional(SqlServerOptions.SERVER_TIME_ZONE).ifPresent(b::serverTimeZone);
        return b.build();
    }

    @Override
    public ConnectionSettings connection() {
        return connection;
    }

    /** The database whose change tables are read. */
    public String database() {
        return database;
    }

    /** The schema of the CDC change tables and functions. */
    public String cdcSchema() {
        return cdcSchema;
    }

    public Duration pollInterval() {
        return pollInterval;
    }

    /** The page size of one read of one capture instance. */
    public int maxEventsPerPoll() {
        return maxEventsPerPoll;
    }

    /**
     * The fixed offset the server's clock runs at ({@code server-time-zone}), at which commit times are
     * read; null when not set (events carry no commit time).
     */
    @Nullable
    public ZoneOffset serverTimeZone() {
        return serverTimeZone;
    }

    /** How often the capture job is sampled for the metrics. */
    public Duration metricsInterval() {
        return metricsInterval;
    }

    @Override
    public String toString() {
        return "SqlServerSourceConfig{" + connection.describe() + ", database=" + database + ", password="
                + connection.password() + ", tls=" + connection.tlsMode() + ", " + CDC_SCHEMA + "=" + cdcSchema
                + (serverTimeZone == null ? "" : ", " + SERVER_TIME_ZONE + "=" + serverTimeZone.getId()) + "}";
    }

    /**
     * A zone with daylight saving time is refused: its autumn hour of local times happens twice, and
     * {@code cdc.lsn_time_mapping} holds local times only.
     */
    @Nullable
    private static ZoneOffset offset(@Nullable String zone) {
        if (zone == null || zone.isBlank()) {
            return null;
        }
        ZoneId id;
        try {
            id = ZoneId.of(zone.trim());
        } catch (DateTimeException e) {
            throw configuration("Option '" + SERVER_TIME_ZONE + "' = '" + zone + "' is not a time zone: write the "
                    + "fixed offset SQL Server's clock runs at, 'UTC' or '+02:00'");
        }
        if (!id.getRules().isFixedOffset()) {
            throw configuration("Option '" + SERVER_TIME_ZONE + "' = '" + zone + "' has daylight saving time: "
                    + "cdc.lsn_time_mapping records commit times in the server's local time without an offset, and "
                    + "such a zone's autumn hour of local times happens twice, so a commit time in it is not one "
                    + "instant. Run the server's clock at a fixed offset (UTC) and set the option to it, or leave "
                    + "the option unset: events then carry no commit time");
        }
        return id.getRules().getOffset(Instant.EPOCH);
    }

    private static CdcException configuration(String message) {
        return new CdcException(CdcException.Kind.CONFIGURATION, message);
    }

    /** Builds a {@link SqlServerSourceConfig}; {@link #build()} says what is missing or wrong. */
    @PublicEvolving
    public static final class Builder extends ConnectionConfigBuilder<Builder> {
        @Nullable private String database;
        private String cdcSchema = SqlServerOptions.CDC_SCHEMA.defaultValue();
        private Duration pollInterval = SqlServerOptions.POLL_INTERVAL.defaultValue();
        private int maxEventsPerPoll = SqlServerOptions.MAX_EVENTS_PER_POLL.defaultValue();
        private boolean captureTruncateEvents;
        @Nullable private String serverTimeZone;
        private Duration metricsInterval = SqlServerOptions.METRICS_INTERVAL.defaultValue();

        private Builder() {
            super(SqlServerOptions.PORT);
        }

        public Builder database(String database) {
            this.database = database;
            return this;
        }

        public Builder cdcSchema(String schema) {
            this.cdcSchema = schema;
            return this;
        }

        public Builder pollInterval(Duration interval) {
            this.pollInterval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        public Builder maxEventsPerPoll(int pageSize) {
            this.maxEventsPerPoll = pageSize;
            return this;
        }

        public Builder captureTruncateEvents(boolean capture) {
            this.captureTruncateEvents = capture;
            return this;
        }

        /** The fixed offset of the server's clock ({@code UTC}, {@code +02:00}): events then carry commit times. */
        public Builder serverTimeZone(@Nullable String zone) {
            this.serverTimeZone = zone;
            return this;
        }

        public Builder metricsInterval(Duration interval) {
            this.metricsInterval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /** @throws CdcException of kind CONFIGURATION naming the option to fix */
        public SqlServerSourceConfig build() {
            ConnectionSettings settings = buildConnection();
            if (database == null || database.isBlank()) {
                throw configuration("Option '" + ConnectionOptions.DATABASE_NAME.key() + "' is required: CDC is "
                        + "enabled per database, and the source reads the change tables of one");
            }
            if (cdcSchema == null || cdcSchema.isBlank()) {
                throw configuration("Option '" + CDC_SCHEMA + "' must name a schema (SQL Server's is 'cdc')");
            }
            OptionChecks.requireDuration(POLL_INTERVAL, pollInterval, MIN_POLL_INTERVAL, MAX_POLL_INTERVAL, "1 ms to 60 s");
            OptionChecks.requireRange(MAX_EVENTS_PER_POLL, maxEventsPerPoll, 2, MAX_PAGE,
                    "a page must hold an update's old and new row");
            OptionChecks.requireDuration(METRICS_INTERVAL, metricsInterval, MIN_METRICS_INTERVAL, MAX_METRICS_INTERVAL,
                    "1 s to 10 min");
            if (captureTruncateEvents) {
                throw configuration("Option '" + CAPTURE_TRUNCATE_EVENTS + "' = true is refused: SQL Server refuses "
                        + "TRUNCATE TABLE on a table with CDC enabled (error 4711, 'Cannot truncate table because it is "
                        + "published for replication or enabled for Change Data Capture'), and TRUNCATE fires no DDL "
                        + "trigger, so there is no truncation of a captured table to capture. Leave it false (a "
                        + "DELETE without WHERE is captured row by row)");
            }
            return new SqlServerSourceConfig(this, settings, offset(serverTimeZone));
        }
    }
}
