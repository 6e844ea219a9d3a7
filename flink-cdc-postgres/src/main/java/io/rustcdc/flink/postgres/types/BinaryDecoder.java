package io.rustcdc.flink.postgres.types;

/**
 * Decodes one value from the binary form a type's send function writes ({@code COPY ... (FORMAT binary)}),
 * into the same value as the type's {@link TextDecoder} reads from its text form.
 */
@FunctionalInterface
public interface BinaryDecoder {
    /**
     * The value of the bytes {@code data[from, to)}.
     *
     * @throws IllegalArgumentException when the bytes are not a value of the type; the caller names table,
     *     column and type, never the value
     */
    Object decode(byte[] data, int from, int to);
}
