package io.rustcdc.flink.source;

import java.util.Objects;

/** A secret in an environment variable of the process that connects. */
final class EnvironmentSecret implements SecretProvider {
    private static final long serialVersionUID = 1L;

    private final String name;

    EnvironmentSecret(String name) {
        this.name = Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Option '" + ConnectionOptions.PASSWORD_ENV.key()
                    + "' must name an environment variable, not be blank");
        }
    }

    @Override
    public Secret resolve() {
        String value = System.getenv(name);
        if (value == null) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "The environment variable " + name
                    + " that should hold the password (option '" + ConnectionOptions.PASSWORD_ENV.key()
                    + "') is not set in this process: set it on the JobManager and on every TaskManager, "
                    + "where the source connects");
        }
        return Secret.of(value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EnvironmentSecret && ((EnvironmentSecret) o).name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return "env:" + name;
    }
}
