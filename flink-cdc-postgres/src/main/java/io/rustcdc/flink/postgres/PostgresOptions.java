package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.ConnectionOptions;
import io.rustcdc.flink.source.TlsMode;
import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Every option of the PostgreSQL connector, with its default and what it guards against. The SQL
 * factory and {@link PostgresSourceConfig#fromConfiguration} read these; the names follow Apache
 * Flink CDC's where a user would look for them.
 */
@PublicEvolving
public final class PostgresOptions {
    private PostgresOptions() {}

    public static final ConfigOption<String> HOSTNAME = ConnectionOptions.HOSTNAME;

    public static final ConfigOption<Integer> PORT = ConfigOptions.key("port")
            .intType()
            .defaultValue(5432)
            .withDescription("Port of the PostgreSQL server.");

    public static final ConfigOption<String> USERNAME = ConnectionOptions.USERNAME;

    public static final ConfigOption<String> PASSWORD = ConnectionOptions.PASSWORD;

    public static final ConfigOption<String> PASSWORD_ENV = ConnectionOptions.PASSWORD_ENV;

    public static final ConfigOption<String> PASSWORD_FILE = ConnectionOptions.PASSWORD_FILE;

    public static final ConfigOption<String> DATABASE_NAME = ConnectionOptions.DATABASE_NAME;

    public static final ConfigOption<String> SLOT_NAME = ConfigOptions.key("slot.name")
            .stringType()
            .noDefaultValue()
            .withDescription("Logical replication slot (plugin pgoutput) the stream reads. One slot per job.");

    public static final ConfigOption<Boolean> SLOT_CREATE_IF_MISSING = ConfigOptions.key("slot.create-if-missing")
            .booleanType()
            .defaultValue(false)
            .withDescription("Create the slot when it does not exist. Off by default: a slot that disappeared "
                    + "and was silently recreated restarts capture at the current WAL position and loses "
                    + "everything in between, which looks exactly like healthy operation.");

    public static final ConfigOption<Boolean> SLOT_FAILOVER = ConfigOptions.key("slot.failover")
            .booleanType()
            .defaultValue(false)
            .withDescription("Create the slot with failover = true (PostgreSQL 17+), so it survives a promotion "
                    + "of a standby that synchronizes slots. Applies only when this connector creates the slot.");

    public static final ConfigOption<String> PUBLICATION_NAME = ConfigOptions.key("publication.name")
            .stringType()
            .noDefaultValue()
            .withDescription("Publication that decides which tables pgoutput sends.");

    public static final ConfigOption<Boolean> PUBLICATION_CREATE_IF_MISSING =
            ConfigOptions.key("publication.create-if-missing")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription("Create the publication, for exactly the captured tables, when it does not exist.");

    public static final ConfigOption<TlsMode> TLS_MODE = ConnectionOptions.TLS_MODE;

    public static final ConfigOption<String> TLS_ROOT_CERT = ConnectionOptions.TLS_ROOT_CERT;

    public static final ConfigOption<Duration> CONNECT_TIMEOUT = ConnectionOptions.CONNECT_TIMEOUT;

    public static final ConfigOption<Duration> READ_TIMEOUT = ConnectionOptions.READ_TIMEOUT;

    public static final ConfigOption<Integer> CONNECT_MAX_RETRIES = ConnectionOptions.CONNECT_MAX_RETRIES;

    public static final ConfigOption<Duration> CONNECT_RETRY_INITIAL_DELAY = ConnectionOptions.CONNECT_RETRY_INITIAL_DELAY;

    public static final ConfigOption<Duration> CONNECT_RETRY_MAX_DELAY = ConnectionOptions.CONNECT_RETRY_MAX_DELAY;

    public static final ConfigOption<Boolean> CAPTURE_LOGICAL_MESSAGES = ConfigOptions.key("capture-logical-messages")
            .booleanType()
            .defaultValue(false)
            .withDescription("Emit pg_logical_emit_message() output as op=message events on the table <prefix>__messages.");

    public static final ConfigOption<Boolean> TOAST_RESELECT = ConfigOptions.key("toast.reselect")
            .booleanType()
            .defaultValue(false)
            .withDescription("Fill the unchanged TOASTed values that an update does not send (a table without "
                    + "REPLICA IDENTITY FULL) by reading them from the table by the row's key, one query per such "
                    + "update, as the update is decoded. The value read is the row's value then: the update's own "
                    + "unless the row changed again in between, in which case that later change follows in the "
                    + "stream; a row deleted in between leaves the values absent.");

    public static final ConfigOption<String> WAL_TRANSPORT = ConfigOptions.key("wal.transport")
            .stringType()
            .defaultValue("streaming")
            .withDescription("How changes are read from the slot: 'streaming' (a replication connection, "
                    + "START_REPLICATION) or 'sql-peek' (plain SQL on an ordinary connection: "
                    + "pg_logical_slot_peek_binary_changes, and pg_replication_slot_advance once a checkpoint holds a "
                    + "position), for connections that cannot carry a replication stream, such as a pooler in "
                    + "transaction mode. The same events and positions; slower, since every poll decodes the slot's "
                    + "WAL again from its confirmed position. The role needs the REPLICATION attribute either way.");

    public static final ConfigOption<Duration> STATUS_INTERVAL = ConfigOptions.key("status.interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("How often the stream reports its confirmed position to the server, 1 s to 10 min; "
                    + "below the server's wal_sender_timeout.");

    public static final ConfigOption<Duration> SLOT_CHECK_INTERVAL = ConfigOptions.key("slot.check-interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("How often the streaming subtask samples its slot (the postgres.slot* gauges) and checks "
                    + "that this source's walsender still streams it, 1 s to 10 min, on a thread and connection of "
                    + "its own.");
}
