package io.rustcdc.flink.postgres;

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

    public static final ConfigOption<String> HOSTNAME = ConfigOptions.key("hostname")
            .stringType()
            .noDefaultValue()
            .withDescription("Host name or IP address of the PostgreSQL server.");

    public static final ConfigOption<Integer> PORT = ConfigOptions.key("port")
            .intType()
            .defaultValue(5432)
            .withDescription("Port of the PostgreSQL server.");

    public static final ConfigOption<String> USERNAME = ConfigOptions.key("username")
            .stringType()
            .noDefaultValue()
            .withDescription("Login role. Streaming needs the REPLICATION attribute; snapshots need SELECT on the tables.");

    public static final ConfigOption<String> PASSWORD = ConfigOptions.key("password")
            .stringType()
            .noDefaultValue()
            .withDescription("Password of the role. Never logged. Prefer password.env or password.file.");

    public static final ConfigOption<String> PASSWORD_ENV = ConfigOptions.key("password.env")
            .stringType()
            .noDefaultValue()
            .withDescription("Name of an environment variable holding the password, read where the source runs.");

    public static final ConfigOption<String> PASSWORD_FILE = ConfigOptions.key("password.file")
            .stringType()
            .noDefaultValue()
            .withDescription("Path of a file holding the password, read where the source runs.");

    public static final ConfigOption<String> DATABASE_NAME = ConfigOptions.key("database-name")
            .stringType()
            .noDefaultValue()
            .withDescription("Database to capture.");

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

    public static final ConfigOption<TlsMode> TLS_MODE = ConfigOptions.key("tls.mode")
            .enumType(TlsMode.class)
            .defaultValue(TlsMode.REQUIRE)
            .withDescription("TLS to the server: require (encrypted; the default), verify-ca, verify-full, or "
                    + "disable for plaintext, which must be chosen explicitly.");

    public static final ConfigOption<String> TLS_ROOT_CERT = ConfigOptions.key("tls.root-cert")
            .stringType()
            .noDefaultValue()
            .withDescription("Path of the CA certificate(s) that verify-ca and verify-full check the server against.");

    public static final ConfigOption<Duration> CONNECT_TIMEOUT = ConfigOptions.key("connect.timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(30))
            .withDescription("How long to wait for a connection, 1 s to 300 s.");

    public static final ConfigOption<Boolean> CAPTURE_LOGICAL_MESSAGES = ConfigOptions.key("capture-logical-messages")
            .booleanType()
            .defaultValue(false)
            .withDescription("Emit pg_logical_emit_message() output as op=message events on the table <prefix>__messages.");

    public static final ConfigOption<Duration> STATUS_INTERVAL = ConfigOptions.key("status.interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("How often the stream reports its confirmed position to the server, 1 s to 10 min; "
                    + "below the server's wal_sender_timeout.");
}
