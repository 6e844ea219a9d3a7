package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.ConnectionConfig;
import io.rustcdc.flink.source.ConnectionConfigBuilder;
import io.rustcdc.flink.source.ConnectionOptions;
import io.rustcdc.flink.source.ConnectionSettings;
import io.rustcdc.flink.source.OptionChecks;
import java.io.Serializable;
import java.time.Duration;
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

    private static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(1);
    private static final Duration MAX_POLL_INTERVAL = Duration.ofSeconds(60);
    private static final int MAX_PAGE = 100_000;

    private final ConnectionSettings connection;
    private final String database;
    private final String cdcSchema;
    private final Duration pollInterval;
    private final int maxEventsPerPoll;

    private SqlServerSourceConfig(Builder b, ConnectionSettings connection) {
        this.connection = connection;
        this.database = b.database;
        this.cdcSchema = b.cdcSchema;
        this.pollInterval = b.pollInterval;
        this.maxEventsPerPoll = b.maxEventsPerPoll;
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
                .connectionOptions(options);
        options.getOptional(SqlServerOptions.DATABASE_NAME).ifPresent(b::database);
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

    @Override
    public String toString() {
        return "SqlServerSourceConfig{" + connection.describe() + ", database=" + database + ", password="
                + connection.password() + ", tls=" + connection.tlsMode() + ", " + CDC_SCHEMA + "=" + cdcSchema + "}";
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
            if (captureTruncateEvents) {
                throw configuration("Option '" + CAPTURE_TRUNCATE_EVENTS + "' = true is not implemented by this "
                        + "connector yet (TRUNCATE TABLE is not in SQL Server's change tables): leave it false; a "
                        + "TRUNCATE of a captured table is then not seen by the stream");
            }
            return new SqlServerSourceConfig(this, settings);
        }
    }
}
