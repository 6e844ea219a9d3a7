package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.ConnectionOptions;
import io.rustcdc.flink.source.TlsMode;
import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Every option of the SQL Server connector, with its default and what it guards against. {@link
 * SqlServerSourceConfig#fromConfiguration} reads these.
 */
@PublicEvolving
public final class SqlServerOptions {
    private SqlServerOptions() {}

    public static final ConfigOption<String> HOSTNAME = ConnectionOptions.HOSTNAME;

    public static final ConfigOption<Integer> PORT = ConfigOptions.key(SqlServerSourceConfig.PORT)
            .intType()
            .defaultValue(1433)
            .withDescription("Port of the SQL Server instance.");

    public static final ConfigOption<String> USERNAME = ConnectionOptions.USERNAME;

    public static final ConfigOption<String> PASSWORD = ConnectionOptions.PASSWORD;

    public static final ConfigOption<String> PASSWORD_ENV = ConnectionOptions.PASSWORD_ENV;

    public static final ConfigOption<String> PASSWORD_FILE = ConnectionOptions.PASSWORD_FILE;

    /** Required: CDC is enabled per database, and a source reads one. */
    public static final ConfigOption<String> DATABASE_NAME = ConnectionOptions.DATABASE_NAME;

    public static final ConfigOption<TlsMode> TLS_MODE = ConnectionOptions.TLS_MODE;

    public static final ConfigOption<String> TLS_ROOT_CERT = ConnectionOptions.TLS_ROOT_CERT;

    public static final ConfigOption<Duration> CONNECT_TIMEOUT = ConnectionOptions.CONNECT_TIMEOUT;

    public static final ConfigOption<Duration> READ_TIMEOUT = ConnectionOptions.READ_TIMEOUT;

    public static final ConfigOption<String> CDC_SCHEMA = ConfigOptions.key(SqlServerSourceConfig.CDC_SCHEMA)
            .stringType()
            .defaultValue("cdc")
            .withDescription("The schema that holds the CDC change tables and functions (cdc.change_tables, "
                    + "cdc.fn_cdc_get_all_changes_<instance>). Checked at the start: a schema the database does not "
                    + "have fails naming it.");

    public static final ConfigOption<Duration> POLL_INTERVAL = ConfigOptions.key(SqlServerSourceConfig.POLL_INTERVAL)
            .durationType()
            .defaultValue(Duration.ofMillis(5_000))
            .withDescription("How long the stream waits before asking the change tables again when a window was "
                    + "empty, 1 ms to 60 s. Latency is about this plus the capture job's own delay.");

    public static final ConfigOption<Integer> MAX_EVENTS_PER_POLL = ConfigOptions
            .key(SqlServerSourceConfig.MAX_EVENTS_PER_POLL)
            .intType()
            .defaultValue(10_000)
            .withDescription("The page size: at most this many change rows are read per capture instance per round "
                    + "(2 to 100000; an update is two rows). A window with n instances may buffer n pages.");

    public static final ConfigOption<Boolean> CAPTURE_TRUNCATE_EVENTS = ConfigOptions
            .key(SqlServerSourceConfig.CAPTURE_TRUNCATE_EVENTS)
            .booleanType()
            .defaultValue(false)
            .withDescription("Refused when true: SQL Server refuses TRUNCATE TABLE on a table with CDC enabled "
                    + "(error 4711), and TRUNCATE fires no DDL trigger, so a captured table is never truncated and "
                    + "there is nothing to capture (docs/sqlserver.md).");

    public static final ConfigOption<String> SERVER_TIME_ZONE = ConfigOptions
            .key(SqlServerSourceConfig.SERVER_TIME_ZONE)
            .stringType()
            .noDefaultValue()
            .withDescription("The fixed offset the SQL Server's clock runs at ('UTC', '+02:00'), in which "
                    + "cdc.lsn_time_mapping records commit times. Set, stream events carry their transaction's commit "
                    + "time (SQL: op_ts), and every round checks the server's offset against it; unset, they carry "
                    + "none. A zone with daylight saving time is refused: its autumn hour of local times happens "
                    + "twice, and a commit time in it is not one instant.");

    public static final ConfigOption<Duration> METRICS_INTERVAL = ConfigOptions
            .key(SqlServerSourceConfig.METRICS_INTERVAL)
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("How often the streaming subtask samples the capture job for the sqlserver.capture* "
                    + "gauges (sys.dm_cdc_log_scan_sessions), 1 s to 10 min, on a thread and connection of its own.");

    public static final ConfigOption<Integer> CONNECT_MAX_RETRIES = ConnectionOptions.CONNECT_MAX_RETRIES;

    public static final ConfigOption<Duration> CONNECT_RETRY_INITIAL_DELAY = ConnectionOptions.CONNECT_RETRY_INITIAL_DELAY;

    public static final ConfigOption<Duration> CONNECT_RETRY_MAX_DELAY = ConnectionOptions.CONNECT_RETRY_MAX_DELAY;
}
