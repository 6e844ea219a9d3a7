package io.rustcdc.flink.source;

import java.io.Serializable;
import java.nio.file.Path;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Where a password comes from, asked for it each time a connection is opened: by the enumerator
 * on the JobManager and by each reader on the TaskManagers, never when the job is built. Only the
 * provider travels in the job graph, so a password read from the environment or a file is never
 * in it, and a rotated password or a short-lived token is used from the next connection on.
 *
 * <pre>{@code
 * SecretProvider.environment("PGPASSWORD");           // read where the source runs
 * SecretProvider.file("/run/secrets/pg");              // read at every connection
 * SecretProvider token = () -> Secret.of(iam.mintToken()); // your own; must be Serializable
 * Secret.of("literal");                                 // a Secret is its own provider, in the job graph
 * }</pre>
 *
 * <p>An implementation must be serializable, safe to call from several threads, and must not put
 * the secret into {@code toString} or an exception message.
 */
@PublicEvolving
@FunctionalInterface
public interface SecretProvider extends Serializable {
    /**
     * The secret for the connection about to be opened.
     *
     * @throws CdcException of kind CONFIGURATION when it cannot be had, saying from where
     */
    Secret resolve();

    /** The value of environment variable {@code name}, read at each connection where the source runs. */
    static SecretProvider environment(String name) {
        return new EnvironmentSecret(name);
    }

    /** The content of {@code file} without its trailing line break, read at each connection. */
    static SecretProvider file(String file) {
        return new FileSecret(file);
    }

    /** As {@link #file(String)}. */
    static SecretProvider file(Path file) {
        return new FileSecret(file.toString());
    }
}
