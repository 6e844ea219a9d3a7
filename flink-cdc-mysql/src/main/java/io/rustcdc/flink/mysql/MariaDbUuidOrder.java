package io.rustcdc.flink.mysql;

import java.util.Arrays;
import org.apache.flink.annotation.Internal;

/**
 * MariaDB's order of its UUID type (10.7+), as a table created by MariaDB 10.9.8, 10.10.6, 10.11.5,
 * 11.0.3, 11.1.2, 11.2.1 or later stores it: by the bytes of its record form, unsigned. A UUID whose
 * version byte (the 7th) is 0x01 to 0x5F (version 0 with low bits set, up to version 5) and whose
 * variant bit (the top bit of the 9th byte) is set is stored with its segments swapped (node, clock,
 * version and time high, time mid, time low), so time-based UUIDs sort by node, clock, then time;
 * every other UUID (the nil UUID, versions 6 and later, variant 0) is stored as written. The server's
 * {@code ORDER BY}, its index and its comparisons with a value ({@code u > '...'}) all use this
 * order, also between a swapped and an unswapped UUID ({@code plugin/type_uuid/sql_type_uuid.h}:
 * {@code memory_to_record}, {@code cmp}). Values are the server's text, 36 characters with hyphens.
 * Not this order: a table of the older format, which stores every UUID swapped ({@link ChunkEnds}
 * fails on it when a chunk end shows it), and a UUID written as 16 bytes of version 8 or more and
 * variant 0, which the server reads back as another UUID (its text is a valid one's, so it cannot be
 * told apart; docs/mysql.md).
 */
@Internal
final class MariaDbUuidOrder {
    private static final int LENGTH = 16;
    private static final String NOT_TEXT = "A MariaDB UUID key value is not a UUID's text (32 hex digits with hyphens)";

    private MariaDbUuidOrder() {}

    static int compare(String a, String b) {
        return Arrays.compareUnsigned(record(a), record(b));
    }

    /** The bytes as MariaDB stores the UUID whose text is {@code uuid}. */
    static byte[] record(String uuid) {
        byte[] m = bytes(uuid);
        if (!swapped(m)) {
            return m;
        }
        byte[] r = new byte[LENGTH];
        System.arraycopy(m, 10, r, 0, 6); // node
        System.arraycopy(m, 8, r, 6, 2); // variant and clock sequence
        System.arraycopy(m, 6, r, 8, 2); // version and time high
        System.arraycopy(m, 4, r, 10, 2); // time mid
        System.arraycopy(m, 0, r, 12, 4); // time low
        return r;
    }

    /** The server's {@code mem_need_swap}: the version byte, a signed char, in 1..0x5F, and the variant bit set. */
    private static boolean swapped(byte[] m) {
        return m[6] > 0 && m[6] < 0x60 && (m[8] & 0x80) != 0;
    }

    private static byte[] bytes(String uuid) {
        byte[] b = new byte[LENGTH];
        int n = 0;
        for (int i = 0; i < uuid.length() && n < 2 * LENGTH; i++) {
            char c = uuid.charAt(i);
            if (c == '-') {
                continue;
            }
            int digit = Character.digit(c, 16);
            if (digit < 0) {
                throw new IllegalArgumentException(NOT_TEXT);
            }
            b[n / 2] |= (byte) (n % 2 == 0 ? digit << 4 : digit);
            n++;
        }
        if (n != 2 * LENGTH || uuid.length() != 36) {
            throw new IllegalArgumentException(NOT_TEXT);
        }
        return b;
    }
}
