package io.rustcdc.flink.postgres.types;

import java.nio.charset.StandardCharsets;

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

    /**
     * The value of the UTF-8 text {@code text[from, to)}, as COPY and pgoutput send it: through a String
     * unless the decoder reads the bytes in place.
     */
    default Object decode(byte[] text, int from, int to) {
        return decode(new String(text, from, to - from, StandardCharsets.UTF_8));
    }

    /** A decoder that reads the bytes in place (numbers, dates and times need no String); text goes through them. */
    static TextDecoder inPlace(InPlace decoder) {
        return new TextDecoder() {
            @Override
            public Object decode(String text) {
                byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                return decoder.decode(bytes, 0, bytes.length);
            }

            @Override
            public Object decode(byte[] text, int from, int to) {
                return decoder.decode(text, from, to);
            }
        };
    }

    /** Decodes the UTF-8 text {@code text[from, to)} in place. */
    @FunctionalInterface
    interface InPlace {
        Object decode(byte[] text, int from, int to);
    }
}
