package io.rustcdc.flink.source;

import java.time.Duration;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

/**
 * The connection half of a connector's configuration builder: host, port, user, password, TLS, the
 * connect timeout and retries, kept in one {@link ConnectionSettings.Builder} and checked alike for
 * every connector. A connector's builder extends it with its own options and calls {@link
 * #buildConnection()} in its {@code build()}. Not thread-safe.
 *
 * <pre>{@code
 * public static final class Builder extends ConnectionConfigBuilder<Builder> {
 *     private Builder() {
 *         super(MyOptions.PORT);
 *     }
 *     // the connector's own setters, then build() { ConnectionSettings connection = buildConnection(); ... }
 * }
 * }</pre>
 *
 * @param <B> the connector's builder, which every setter returns
 */
@PublicEvolving
public abstract class ConnectionConfigBuilder<B extends ConnectionConfigBuilder<B>> {
    private final ConfigOption<Integer> portOption;
    private final ConnectionSettings.Builder connection;

    /** {@code port} is the connector's own port option; its default is the port until one is set. */
    protected ConnectionConfigBuilder(ConfigOption<Integer> port) {
        this.portOption = port;
        this.connection = ConnectionSettings.builder(port.defaultValue());
    }

    public B hostname(String hostname) {
        connection.hostname(hostname);
        return self();
    }

    public B port(int port) {
        connection.port(port);
        return self();
    }

    public B username(String username) {
        connection.username(username);
        return self();
    }

    /**
     * Where the password comes from, asked at each connection: {@link
     * SecretProvider#environment}, {@link SecretProvider#file}, a provider of your own, or a
     * {@link Secret} (which is then part of the job graph).
     */
    public B password(SecretProvider password) {
        connection.password(password);
        return self();
    }

    /** TLS to the server: {@code REQUIRE} (encrypted) by default; {@code DISABLE} only when chosen. */
    public B tlsMode(TlsMode tlsMode) {
        connection.tlsMode(tlsMode);
        return self();
    }

    /** The CA certificate file for {@code VERIFY_CA} and {@code VERIFY_FULL}. */
    public B tlsRootCert(@Nullable String path) {
        connection.tlsRootCert(path);
        return self();
    }

    public B connectTimeout(Duration timeout) {
        connection.connectTimeout(timeout);
        return self();
    }

    /** How long a snapshot or catalogue read waits for the server's next bytes ({@code read.timeout}). */
    public B readTimeout(Duration timeout) {
        connection.readTimeout(timeout);
        return self();
    }

    /**
     * How failed connections are retried ({@code connect.max-retries}, {@code
     * connect.retry.initial-delay}, {@code connect.retry.max-delay}); {@code ConnectionRetry.none()}
     * leaves every failure to Flink's restart strategy.
     */
    public B connectionRetry(ConnectionRetry retry) {
        connection.retry(retry);
        return self();
    }

    /**
     * Applies the {@link ConnectionOptions} that {@code options} sets, and the connector's port option.
     *
     * @throws CdcException of kind CONFIGURATION when more than one password option is set
     */
    public B connectionOptions(ReadableConfig options) {
        connection.options(options, portOption);
        return self();
    }

    /** @throws CdcException of kind CONFIGURATION naming the connection option to fix */
    protected final ConnectionSettings buildConnection() {
        return connection.build();
    }

    @SuppressWarnings("unchecked") // B is the class that extends this one
    private B self() {
        return (B) this;
    }
}
