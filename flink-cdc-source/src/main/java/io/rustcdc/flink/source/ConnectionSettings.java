package io.rustcdc.flink.source;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

/**
 * Where and as whom a connector reaches its database: host, port, user, where the password comes
 * from, TLS, the connect timeout and how a failed connection is retried ({@link ConnectionRetry}),
 * checked alike for every connector. A connector keeps one of these in its configuration and adds
 * its own options and its driver's mapping. The password is
 * held as a {@link SecretProvider}, resolved at each connection, and never appears in {@code
 * toString}. Immutable.
 *
 * <pre>{@code
 * ConnectionSettings connection = ConnectionSettings.builder(5432)
 *         .hostname("db.internal").username("cdc")
 *         .password(SecretProvider.environment("PGPASSWORD"))
 *         .tlsMode(TlsMode.VERIFY_FULL).tlsRootCert("/etc/ssl/db-ca.pem")
 *         .build();
 * }</pre>
 */
@PublicEvolving
public final class ConnectionSettings implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Duration MIN_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration MAX_TIMEOUT = Duration.ofSeconds(300);
    private static final Duration MAX_READ_TIMEOUT = Duration.ofDays(1);

    private final String hostname;
    private final int port;
    private final String username;
    private final SecretProvider password;
    private final TlsMode tlsMode;
    @Nullable private final String tlsRootCert;
    private final Duration connectTimeout;
    private final Duration readTimeout;
    private final ConnectionRetry retry;

    private ConnectionSettings(Builder b, ConnectionRetry retry) {
        this.hostname = b.hostname;
        this.port = b.port;
        this.username = b.username;
        this.password = b.password;
        this.tlsMode = b.tlsMode;
        this.tlsRootCert = b.tlsRootCert;
        this.connectTimeout = b.connectTimeout;
        this.readTimeout = b.readTimeout;
        this.retry = retry;
    }

    /** A builder whose port is {@code defaultPort} until set: the connector's usual port. */
    public static Builder builder(int defaultPort) {
        return new Builder(defaultPort);
    }

    public String hostname() {
        return hostname;
    }

    public int port() {
        return port;
    }

    public String username() {
        return username;
    }

    /** Where the password comes from; {@link SecretProvider#resolve()} it for each connection. */
    public SecretProvider password() {
        return password;
    }

    /**
     * The password when it was given as a literal {@link Secret}, else null (a provider is not
     * asked again): to mask driver messages of connections already open, whose own resolved
     * password the connector masks at login.
     */
    @Nullable
    public Secret literalPassword() {
        return password instanceof Secret ? (Secret) password : null;
    }

    public TlsMode tlsMode() {
        return tlsMode;
    }

    /** The CA certificate file the server's certificate is checked against, or null. */
    @Nullable
    public String tlsRootCert() {
        return tlsRootCert;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    /**
     * How long a read on an ordinary (JDBC) connection, a snapshot chunk's or a catalogue query's, waits
     * for the server's next bytes before the connection counts as dead ({@code read.timeout}).
     */
    public Duration readTimeout() {
        return readTimeout;
    }

    /** How a failed connection is retried before the task fails. */
    public ConnectionRetry retry() {
        return retry;
    }

    /** {@code user@host:port}, for messages. */
    public String describe() {
        return username + "@" + hostname + ":" + port;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ConnectionSettings)) {
            return false;
        }
        ConnectionSettings c = (ConnectionSettings) o;
        return hostname.equals(c.hostname) && port == c.port && username.equals(c.username)
                && password.equals(c.password) && tlsMode == c.tlsMode && Objects.equals(tlsRootCert, c.tlsRootCert)
                && connectTimeout.equals(c.connectTimeout) && readTimeout.equals(c.readTimeout)
                && retry.equals(c.retry);
    }

    @Override
    public int hashCode() {
        return Objects.hash(hostname, port, username, tlsMode);
    }

    @Override
    public String toString() {
        return describe() + ", password=" + password + ", tls=" + tlsMode
                + (tlsRootCert == null ? "" : " (root " + tlsRootCert + ")") + ", connectTimeout=" + connectTimeout
                + ", readTimeout=" + readTimeout + ", retry=" + retry;
    }

    private static CdcException configuration(String message) {
        return new CdcException(CdcException.Kind.CONFIGURATION, message);
    }

    /** Builds {@link ConnectionSettings}; {@link #build()} names the option to fix. Not thread-safe. */
    @PublicEvolving
    public static final class Builder {
        private String hostname;
        private int port;
        private String username;
        private SecretProvider password;
        private TlsMode tlsMode = ConnectionOptions.TLS_MODE.defaultValue();
        private String tlsRootCert;
        private Duration connectTimeout = ConnectionOptions.CONNECT_TIMEOUT.defaultValue();
        private Duration readTimeout = ConnectionOptions.READ_TIMEOUT.defaultValue();
        private int maxRetries = ConnectionOptions.CONNECT_MAX_RETRIES.defaultValue();
        private Duration retryInitialDelay = ConnectionOptions.CONNECT_RETRY_INITIAL_DELAY.defaultValue();
        private Duration retryMaxDelay = ConnectionOptions.CONNECT_RETRY_MAX_DELAY.defaultValue();

        private Builder(int defaultPort) {
            this.port = defaultPort;
        }

        public Builder hostname(String hostname) {
            this.hostname = hostname;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder username(String username) {
            this.username = username;
            return this;
        }

        /** Where the password comes from: a {@link Secret} (then in the job graph) or a provider. */
        public Builder password(SecretProvider password) {
            this.password = password;
            return this;
        }

        /** TLS to the server: {@code REQUIRE} (encrypted) by default; {@code DISABLE} only when chosen. */
        public Builder tlsMode(TlsMode tlsMode) {
            this.tlsMode = Objects.requireNonNull(tlsMode, "tlsMode");
            return this;
        }

        /** The CA certificate file for {@code VERIFY_CA} and {@code VERIFY_FULL}. */
        public Builder tlsRootCert(@Nullable String path) {
            this.tlsRootCert = path;
            return this;
        }

        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** How long a snapshot or catalogue read waits for the server's next bytes ({@code read.timeout}). */
        public Builder readTimeout(Duration timeout) {
            this.readTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** How many times in a row a failed connection is retried; 0 turns retries off. */
        public Builder maxRetries(int maxRetries) {
            this.maxRetries = maxRetries;
            return this;
        }

        /** The wait before the first retry; later ones wait up to twice as long each, up to {@link #retryMaxDelay}. */
        public Builder retryInitialDelay(Duration delay) {
            this.retryInitialDelay = Objects.requireNonNull(delay, "delay");
            return this;
        }

        /** The longest wait between two retries. */
        public Builder retryMaxDelay(Duration delay) {
            this.retryMaxDelay = Objects.requireNonNull(delay, "delay");
            return this;
        }

        /** All three retry settings at once. */
        public Builder retry(ConnectionRetry retry) {
            return maxRetries(retry.maxRetries()).retryInitialDelay(retry.initialDelay()).retryMaxDelay(retry.maxDelay());
        }

        /**
         * Applies the {@link ConnectionOptions} that {@code options} sets, and {@code port}, the
         * connector's own port option.
         *
         * @throws CdcException of kind CONFIGURATION when more than one password option is set
         */
        public Builder options(ReadableConfig options, ConfigOption<Integer> port) {
            options.getOptional(ConnectionOptions.HOSTNAME).ifPresent(this::hostname);
            options.getOptional(port).ifPresent(this::port);
            options.getOptional(ConnectionOptions.USERNAME).ifPresent(this::username);
            ConnectionOptions.password(options).ifPresent(this::password);
            options.getOptional(ConnectionOptions.TLS_MODE).ifPresent(this::tlsMode);
            options.getOptional(ConnectionOptions.TLS_ROOT_CERT).ifPresent(this::tlsRootCert);
            options.getOptional(ConnectionOptions.CONNECT_TIMEOUT).ifPresent(this::connectTimeout);
            options.getOptional(ConnectionOptions.READ_TIMEOUT).ifPresent(this::readTimeout);
            options.getOptional(ConnectionOptions.CONNECT_MAX_RETRIES).ifPresent(this::maxRetries);
            options.getOptional(ConnectionOptions.CONNECT_RETRY_INITIAL_DELAY).ifPresent(this::retryInitialDelay);
            options.getOptional(ConnectionOptions.CONNECT_RETRY_MAX_DELAY).ifPresent(this::retryMaxDelay);
            return this;
        }

        /** @throws CdcException of kind CONFIGURATION naming the option to fix */
        public ConnectionSettings build() {
            OptionChecks.requireValue(ConnectionOptions.HOSTNAME.key(), hostname);
            OptionChecks.requireValue(ConnectionOptions.USERNAME.key(), username);
            if (password == null) {
                throw configuration("No password: set '" + ConnectionOptions.PASSWORD.key() + "', '"
                        + ConnectionOptions.PASSWORD_ENV.key() + "' or '" + ConnectionOptions.PASSWORD_FILE.key() + "'");
            }
            OptionChecks.requireRange("port", port, 1, 65535);
            if (tlsMode.verifiesCertificate() && (tlsRootCert == null || tlsRootCert.isBlank())) {
                throw configuration("Option '" + ConnectionOptions.TLS_MODE.key() + "' = " + tlsMode + " verifies the "
                        + "server's certificate: set '" + ConnectionOptions.TLS_ROOT_CERT.key()
                        + "' to the CA certificate, or choose 'require'");
            }
            OptionChecks.requireDuration(ConnectionOptions.CONNECT_TIMEOUT.key(), connectTimeout, MIN_TIMEOUT, MAX_TIMEOUT,
                    "1 s to 300 s");
            OptionChecks.requireDuration(ConnectionOptions.READ_TIMEOUT.key(), readTimeout, MIN_TIMEOUT,
                    MAX_READ_TIMEOUT, "1 s to 1 day");
            return new ConnectionSettings(this, ConnectionRetry.of(maxRetries, retryInitialDelay, retryMaxDelay));
        }
    }
}
