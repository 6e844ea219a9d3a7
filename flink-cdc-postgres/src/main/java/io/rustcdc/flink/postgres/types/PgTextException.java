package io.rustcdc.flink.postgres.types;

/**
 * A value's text does not fit its type. The message says why without quoting the value, so it may
 * go into an error message; exceptions of the JDK's parsers quote their input and may not.
 */
public final class PgTextException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public PgTextException(String message) {
        super(message);
    }
}
