package io.rustcdc.flink.mysql.types;

import java.util.Arrays;
import org.apache.flink.annotation.Internal;

/** Byte-valued columns, alike from both paths: BIT as booleans or exact-width bytes, BINARY padded. */
@Internal
final class BinaryValues {
    private BinaryValues() {}

    /** A BIT, BINARY, BLOB or GEOMETRY value from its bytes (big-endian for BIT). */
    static Object bytes(MySqlColumn c, byte[] bytes) {
        switch (c.family()) {
            case BOOLEAN_BIT:
                return bytes.length > 0 && bytes[bytes.length - 1] != 0;
            case BITS:
                return leftPadded(c, bytes, (c.size() + 7) / 8);
            case BINARY:
                // the binlog drops a BINARY value's trailing zero bytes; the value keeps them
                return bytes.length >= c.size() ? bytes : Arrays.copyOf(bytes, c.size());
            default:
                return bytes;
        }
    }

    /** A UUID's or address's bytes of exactly the type's length, restoring the zero bytes the binlog drops. */
    static byte[] padded(MySqlColumn c, byte[] bytes) {
        if (bytes.length > c.size()) {
            throw c.decodeFailure("the value has " + bytes.length + " bytes, more than the type's " + c.size());
        }
        return bytes.length == c.size() ? bytes : Arrays.copyOf(bytes, c.size());
    }

    private static byte[] leftPadded(MySqlColumn c, byte[] bytes, int width) {
        if (bytes.length == width) {
            return bytes;
        }
        byte[] out = new byte[width];
        int extra = bytes.length - width;
        for (int i = 0; i < extra; i++) {
            if (bytes[i] != 0) {
                throw c.decodeFailure("the value has more than " + c.size() + " bits");
            }
        }
        System.arraycopy(bytes, Math.max(0, extra), out, Math.max(0, -extra), Math.min(width, bytes.length));
        return out;
    }

    static String withoutTrailingSpaces(String text) {
        int end = text.length();
        while (end > 0 && text.charAt(end - 1) == ' ') {
            end--;
        }
        return text.substring(0, end);
    }
}
