package io.rustcdc.flink.source;

import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A password or other secret. It never appears in {@code toString}, a log line or an exception
 * message; only {@link #reveal()} gives it out, to the driver that needs it.
 *
 * <p>A {@code Secret} given to a source is its own {@link SecretProvider} and is serialized with
 * the source into the job graph; to keep the password out of the job graph, give a provider that
 * reads it where the source runs ({@link SecretProvider#environment}, {@link SecretProvider#file}).
 *
 * <pre>{@code
 * Secret.of(vault.read("db/cdc"));
 * }</pre>
 */
@PublicEvolving
public final class Secret implements SecretProvider {
    private static final long serialVersionUID = 1L;
    private static final String MASK = "******";

    private final String value;

    private Secret(String value) {
        this.value = Objects.requireNonNull(value, "value");
    }

    public static Secret of(String value) {
        return new Secret(value);
    }

    /** Itself: a literal secret needs no resolving. */
    @Override
    public Secret resolve() {
        return this;
    }

    /** The secret itself: hand it only to the driver. */
    public String reveal() {
        return value;
    }

    /**
     * {@code text} with every occurrence of this secret masked, for driver messages that may echo
     * it; null stays null.
     */
    public String redact(String text) {
        if (text == null || value.isEmpty()) {
            return text;
        }
        return text.replace(value, MASK);
    }

    /**
     * {@code error} itself when no message in its chain holds this secret, else a copy with the
     * messages masked (same stack traces), to attach as the cause of an exception that may be logged.
     */
    public Throwable redact(Throwable error) {
        return RedactedException.of(error, this);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Secret && ((Secret) o).value.equals(value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    @Override
    public String toString() {
        return MASK;
    }
}
