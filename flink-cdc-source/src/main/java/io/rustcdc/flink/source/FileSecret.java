package io.rustcdc.flink.source;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/** A secret in a file on the machine that connects, read anew for each connection. */
final class FileSecret implements SecretProvider {
    private static final long serialVersionUID = 1L;

    private final String file;

    FileSecret(String file) {
        this.file = Objects.requireNonNull(file, "file");
        if (file.isBlank()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Option '" + ConnectionOptions.PASSWORD_FILE.key()
                    + "' must name a file, not be blank");
        }
    }

    @Override
    public Secret resolve() {
        try {
            return Secret.of(Files.readString(Path.of(file), StandardCharsets.UTF_8).replaceFirst("\\R$", ""));
        } catch (IOException e) {
            // The exception's message is the path and the reason, never the content.
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Cannot read the password file " + file
                    + " (option '" + ConnectionOptions.PASSWORD_FILE.key() + "'): " + e
                    + ". It must be readable on the JobManager and on every TaskManager, where the source connects", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FileSecret && ((FileSecret) o).file.equals(file);
    }

    @Override
    public int hashCode() {
        return file.hashCode();
    }

    @Override
    public String toString() {
        return "file:" + file;
    }
}
