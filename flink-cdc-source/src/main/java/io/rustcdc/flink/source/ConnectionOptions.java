package io.rustcdc.flink.source;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;

/**
 * The options every connector reaches its database with, the same for each (the port and its
 * default are each connector's own), and the one way a password is given. {@link
 * ConnectionSettings} reads them.
 */
@PublicEvolving
public final class ConnectionOptions {
    private ConnectionOptions() {}

    public static final ConfigOption<String> HOSTNAME = ConfigOptions.key("hostname")
            .stringType()
            .noDefaultValue()
            .withDescription("Host name or IP address of the database server.");

    public static final ConfigOption<String> USERNAME = ConfigOptions.key("username")
            .stringType()
            .noDefaultValue()
            .withDescription("The user the source logs in as; each connector's page lists the privileges it needs.");

    public static final ConfigOption<String> PASSWORD = ConfigOptions.key("password")
            .stringType()
            .noDefaultValue()
            .withDescription("Password of the user. Never logged, but part of the job graph (and of the SQL "
                    + "DDL): prefer password.env or password.file, which the job graph holds only by name.");

    public static final ConfigOption<String> PASSWORD_ENV = ConfigOptions.key("password.env")
            .stringType()
            .noDefaultValue()
            .withDescription("Name of an environment variable holding the password, read at each connection "
                    + "where the source runs: on the JobManager and on every TaskManager.");

    public static final ConfigOption<String> PASSWORD_FILE = ConfigOptions.key("password.file")
            .stringType()
            .noDefaultValue()
            .withDescription("Path of a file holding the password, read at each connection where the source "
                    + "runs (JobManager and TaskManagers), so a rotated password is used from the next connection on.");

    public static final ConfigOption<String> DATABASE_NAME = ConfigOptions.key("database-name")
            .stringType()
            .noDefaultValue()
            .withDescription("Database to capture.");

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

    public static final ConfigOption<Duration> READ_TIMEOUT = ConfigOptions.key("read.timeout")
            .durationType()
            .defaultValue(Duration.ofMinutes(10))
            .withDescription("How long a snapshot or catalogue read waits for the server's next bytes before the "
                    + "connection counts as dead (a network partition, a half-open connection) and is retried, "
                    + "1 s to 1 day. The change streams detect a dead server on their own.");

    public static final ConfigOption<Integer> CONNECT_MAX_RETRIES = ConfigOptions.key("connect.max-retries")
            .intType()
            .defaultValue(5)
            .withDescription("How many times in a row the source retries a failed connection (network, timeout, "
                    + "server restart, too many connections) before it fails the task; 0 turns retries off. "
                    + "A refused login, a missing slot, a lost position or a configuration error is never retried.");

    public static final ConfigOption<Duration> CONNECT_RETRY_INITIAL_DELAY =
            ConfigOptions.key("connect.retry.initial-delay")
                    .durationType()
                    .defaultValue(Duration.ofMillis(300))
                    .withDescription("The wait before the first retry of a failed connection, 1 ms to 10 min; "
                            + "each further retry waits up to twice as long, with random jitter.");

    public static final ConfigOption<Duration> CONNECT_RETRY_MAX_DELAY = ConfigOptions.key("connect.retry.max-delay")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("The longest wait between two retries of a failed connection, 1 ms to 10 min, "
                    + "not below connect.retry.initial-delay.");

    /**
     * Where the password comes from, by whichever of {@code password}, {@code password.env} and
     * {@code password.file} is set; empty when none is. Nothing is read here: an environment
     * variable or a file is read at each connection, where the source runs.
     *
     * @throws CdcException of kind CONFIGURATION when more than one is set
     */
    public static Optional<SecretProvider> password(ReadableConfig options) {
        List<String> given = new ArrayList<>();
        SecretProvider provider = null;
        if (options.getOptional(PASSWORD).isPresent()) {
            given.add(PASSWORD.key());
            provider = Secret.of(options.get(PASSWORD));
        }
        if (options.getOptional(PASSWORD_ENV).isPresent()) {
            given.add(PASSWORD_ENV.key());
            provider = SecretProvider.environment(options.get(PASSWORD_ENV));
        }
        if (options.getOptional(PASSWORD_FILE).isPresent()) {
            given.add(PASSWORD_FILE.key());
            provider = SecretProvider.file(options.get(PASSWORD_FILE));
        }
        if (given.size() > 1) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Set only one of " + String.join(", ", given)
                    + ": they all give the password");
        }
        return Optional.ofNullable(provider);
    }
}
