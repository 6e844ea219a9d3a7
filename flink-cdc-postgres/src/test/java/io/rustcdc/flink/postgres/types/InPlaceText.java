package io.rustcdc.flink.postgres.types;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Decodes a text in place as COPY and pgoutput hand it over: in the middle of other bytes, so that a
 * decoder reading past its text's bounds, or from the buffer's start, fails the test.
 */
final class InPlaceText {
    private static final String AROUND = "0123456789-+:. \tBCinfty";

    private InPlaceText() {}

    static Object decode(TextDecoder.InPlace decoder, String text) {
        return decode(decoder, "7-\t", text, "\t:9 BC");
    }

    /** As {@link #decode(TextDecoder.InPlace, String)}, between random bytes that could belong to a value. */
    static Object decode(TextDecoder.InPlace decoder, String text, Random random) {
        return decode(decoder, around(random), text, around(random));
    }

    private static Object decode(TextDecoder.InPlace decoder, String before, String text, String after) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        byte[] prefix = before.getBytes(StandardCharsets.UTF_8);
        byte[] value = text.getBytes(StandardCharsets.UTF_8);
        buffer.writeBytes(prefix);
        buffer.writeBytes(value);
        buffer.writeBytes(after.getBytes(StandardCharsets.UTF_8));
        return decoder.decode(buffer.toByteArray(), prefix.length, prefix.length + value.length);
    }

    private static String around(Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(6); i > 0; i--) {
            s.append(AROUND.charAt(random.nextInt(AROUND.length())));
        }
        return s.toString();
    }
}
