package io.rustcdc.flink.source;

import java.time.Duration;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A connector's configuration as far as it says how to reach the database: its {@link
 * ConnectionSettings} and their parts. A connector's config implements {@link #connection()}; the
 * rest read from it. The password is a provider, resolved at each connection.
 *
 * <pre>{@code
 * ConnectionConfig config = PostgresSourceConfig.builder()...build();
 * String target = config.connection().describe(); // cdc@db.internal:5432
 * }</pre>
 */
@PublicEvolving
public interface ConnectionConfig {
    /** Host, port, user, password, TLS, connect timeout and retries. */
    ConnectionSettings connection();

    default String hostname() {
        return connection().hostname();
    }

    default int port() {
        return connection().port();
    }

    default String username() {
        return connection().username();
    }

    /** Where the password comes from; resolved at each connection. */
    default SecretProvider password() {
        return connection().password();
    }

    default TlsMode tlsMode() {
        return connection().tlsMode();
    }

    /** The CA certificate file the server's certificate is checked against, or null. */
    @Nullable
    default String tlsRootCert() {
        return connection().tlsRootCert();
    }

    default Duration connectTimeout() {
        return connection().connectTimeout();
    }

    /** How long a snapshot or catalogue read waits for the server's next bytes ({@code read.timeout}). */
    default Duration readTimeout() {
        return connection().readTimeout();
    }
}
