package io.rustcdc.flink.postgres.types;

/**
 * Decodes one value from PostgreSQL's text output form, which both the snapshot (COPY) and the
 * stream (pgoutput) deliver, so both paths give equal values.
 */
@FunctionalInterface
public interface TextDecoder {
    /**
     * @throws IllegalArgumentException when the text is not a value of the type; the caller names
     *     table, column and type, never the value
     */
    Object decode(String text);
}
