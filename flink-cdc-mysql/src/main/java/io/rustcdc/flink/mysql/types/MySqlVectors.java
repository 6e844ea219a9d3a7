package io.rustcdc.flink.mysql.types;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * Oracle MySQL 9's VECTOR values, alike from both paths: the server stores a vector as its 32-bit
 * IEEE floats, little-endian, one after another (the binlog writes those bytes after a length, a
 * query gives them as a binary string), so a value is the list of those floats, each from its
 * bits ({@link Float#intBitsToFloat}, never through text). The server refuses NaN and the
 * infinities (checked on 9.7 by every way in: {@code STRING_TO_VECTOR}, binary strings, {@code
 * ALTER} from VARBINARY, a non-strict {@code sql_mode}); -0.0 and subnormal floats are stored and
 * kept. A vector holds at most its column's declared dimension of entries, and may hold fewer (a
 * non-strict session can even store an empty one).
 */
@Internal
final class MySqlVectors {
    private MySqlVectors() {}

    /** The vector's floats, in order; fails naming the column when the bytes are not a vector of it. */
    static List<Float> decode(MySqlColumn c, byte[] bytes) {
        if (bytes.length % Float.BYTES != 0) {
            throw c.decodeFailure("a VECTOR value of " + bytes.length + " bytes, not a whole number of 4-byte floats");
        }
        int entries = bytes.length / Float.BYTES;
        if (entries > c.size()) {
            throw c.decodeFailure("a VECTOR value of " + entries + " entries, more than the column's " + c.size());
        }
        List<Float> floats = new ArrayList<>(entries);
        for (int i = 0; i < bytes.length; i += Float.BYTES) {
            int bits = (bytes[i] & 0xff) | (bytes[i + 1] & 0xff) << 8 | (bytes[i + 2] & 0xff) << 16
                    | (bytes[i + 3] & 0xff) << 24;
            floats.add(Float.intBitsToFloat(bits));
        }
        return Collections.unmodifiableList(floats);
    }

    /**
     * A declared dimension as a bound on a value's entries: the server shows {@code VECTOR(0)} as
     * {@code vector(4294967295)}, a bound no value reaches (its bytes would not fit a row).
     */
    static int bound(long declared) {
        return declared < 0 || declared > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) declared;
    }
}
