package io.rustcdc.flink.source;

import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A password or other secret. It never appears in {@code toString}, a log line or an exception
 * message; only {@link #reveal()} gives it out, to the driver that needs it.
 *
 * <pre>{@code
 * Secret.of(System.getenv("PGPASSWORD"));
 * Secret.fromFile(Path.of("/run/secrets/pg"));
 * }</pre>
 */
@PublicEvolving
public final class Secret implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String value;

    private Secret(String value) {
        this.value = Objects.requireNonNull(value, "value");
    }

    public static Secret of(String value) {
        return new Secret(value);
    }

    /** The value of environment variable {@code name}, read now. */
    public static Secret fromEnvironment(String name) {
        String value = System.getenv(name);
        if (value == null) {
            throw new CdcException(CdcException.Kind.CONFIGURATION,
                    "The environment variable " + name + " that should hold the password is not set");
        }
        return new Secret(value);
    }

    /** The content of {@code file} without its trailing line break, read now. */
    public static Secret fromFile(Path file) {
        try {
            return new Secret(Files.readString(file, StandardCharsets.UTF_8).replaceFirst("\\R$", ""));
        } catch (IOException e) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Cannot read the password file " + file, e);
        }
    }

    /** The secret itself: hand it only to the driver. */
    public String reveal() {
        return value;
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
        return "******";
    }
}
