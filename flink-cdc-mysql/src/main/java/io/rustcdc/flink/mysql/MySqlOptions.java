package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.ConnectionOptions;
import io.rustcdc.flink.source.TlsMode;
import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Every option of the MySQL and MariaDB connectors, with its default and what it guards against.
 * The SQL factories and {@link MySqlSourceConfig#fromConfiguration} read these.
 */
@PublicEvolving
public final class MySqlOptions {
    private MySqlOptions() {}

    public static final ConfigOption<String> HOSTNAME = ConnectionOptions.HOSTNAME;

    public static final ConfigOption<Integer> PORT = ConfigOptions.key(MySqlSourceConfig.PORT)
            .intType()
            .defaultValue(3306)
            .withDescription("Port of the MySQL or MariaDB server.");

    public static final ConfigOption<String> USERNAME = ConnectionOptions.USERNAME;

    public static final ConfigOption<String> PASSWORD = ConnectionOptions.PASSWORD;

    public static final ConfigOption<String> PASSWORD_ENV = ConnectionOptions.PASSWORD_ENV;

    public static final ConfigOption<String> PASSWORD_FILE = ConnectionOptions.PASSWORD_FILE;

    public static final ConfigOption<String> DATABASE_NAME = ConnectionOptions.DATABASE_NAME;

    public static final ConfigOption<Long> SERVER_ID = ConfigOptions.key(MySqlSourceConfig.SERVER_ID)
            .longType()
            .noDefaultValue()
            .withDescription("The id the source's binlog client uses, 1 to 4294967295. Required, no default: "
                    + "two clients or replicas with one id make the server drop one of them.");

    public static final ConfigOption<TlsMode> TLS_MODE = ConnectionOptions.TLS_MODE;

    public static final ConfigOption<ForeignKeyCascades> FOREIGN_KEY_CASCADES = ConfigOptions
            .key(MySqlSourceConfig.FOREIGN_KEY_CASCADES)
            .enumType(ForeignKeyCascades.class)
            .defaultValue(ForeignKeyCascades.REFUSE)
            .withDescription("Captured tables whose foreign keys cascade (ON DELETE or ON UPDATE CASCADE, SET NULL, "
                    + "SET DEFAULT): the server does not log the changes a cascade makes. refuse (the default) "
                    + "fails at the start naming each such key; accept captures the tables without those changes.");

    public static final ConfigOption<String> TLS_ROOT_CERT = ConnectionOptions.TLS_ROOT_CERT;

    public static final ConfigOption<Boolean> ALLOW_PUBLIC_KEY_RETRIEVAL = ConfigOptions
            .key(MySqlSourceConfig.ALLOW_PUBLIC_KEY_RETRIEVAL)
            .booleanType()
            .defaultValue(false)
            .withDescription("With tls.mode = disable, whether the JDBC login may fetch the server's RSA public key "
                    + "to send the password encrypted, as caching_sha2_password (Oracle MySQL's default) needs "
                    + "when the server has not cached the user's login yet. Off by default: over an unencrypted "
                    + "connection a man in the middle could hand over a key of its own. Prefer TLS.");

    public static final ConfigOption<Duration> BINLOG_CHECK_INTERVAL = ConfigOptions
            .key(MySqlSourceConfig.BINLOG_CHECK_INTERVAL)
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("How often the streaming subtask samples the server's binlog for its lag gauges (the "
                    + "<flavor>.binlog* and gtidsBehind gauges), 1 s to 10 min, on a thread and connection of its own.");

    public static final ConfigOption<Duration> BINLOG_READ_TIMEOUT = ConfigOptions
            .key(MySqlSourceConfig.BINLOG_READ_TIMEOUT)
            .durationType()
            .defaultValue(Duration.ofSeconds(30))
            .withDescription("How long the binlog connection may get nothing from the server, not even a heartbeat "
                    + "(asked for every sixth of it), before the stream counts it as dead (a half-open connection, a "
                    + "partition) and fails to be retried, 3 s to 10 min.");

    public static final ConfigOption<Duration> CONNECT_TIMEOUT = ConnectionOptions.CONNECT_TIMEOUT;

    public static final ConfigOption<Duration> READ_TIMEOUT = ConnectionOptions.READ_TIMEOUT;

    public static final ConfigOption<Integer> CONNECT_MAX_RETRIES = ConnectionOptions.CONNECT_MAX_RETRIES;

    public static final ConfigOption<Duration> CONNECT_RETRY_INITIAL_DELAY = ConnectionOptions.CONNECT_RETRY_INITIAL_DELAY;

    public static final ConfigOption<Duration> CONNECT_RETRY_MAX_DELAY = ConnectionOptions.CONNECT_RETRY_MAX_DELAY;
}
