package io.rustcdc.flink.mysql.types;

import java.util.HexFormat;
import org.apache.flink.annotation.Internal;

/**
 * MariaDB's UUID, INET4 and INET6 values from the bytes the binlog carries (a BINARY of 16 or 4
 * bytes in the table map), as the server writes them as text. The binlog holds a UUID's bytes in
 * text order (the server swaps the segments of time-based UUIDs only in its records) and an address
 * in network order. INET6 text follows the server's own rules: lower-case groups without leading
 * zeros, the first longest run of zero groups (even a single one) written as {@code ::}, and the
 * IPv4-compatible ({@code ::a.b.c.d}) and IPv4-mapped ({@code ::ffff:a.b.c.d}) forms in dotted
 * decimal.
 */
@Internal
final class MariaDbAddresses {
    private MariaDbAddresses() {}

    static String uuid(byte[] b) {
        String hex = HexFormat.of().formatHex(b);
        return hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                + hex.substring(16, 20) + "-" + hex.substring(20, 32);
    }

    static String inet4(byte[] b, int offset) {
        return (b[offset] & 0xff) + "." + (b[offset + 1] & 0xff) + "." + (b[offset + 2] & 0xff) + "."
                + (b[offset + 3] & 0xff);
    }

    static String inet6(byte[] b) {
        int[] words = new int[8];
        for (int i = 0; i < 8; i++) {
            words[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        }
        int gapPos = -1;
        int gapLength = -1;
        for (int i = 0; i < 8; ) {
            if (words[i] != 0) {
                i++;
                continue;
            }
            int start = i;
            while (i < 8 && words[i] == 0) {
                i++;
            }
            if (i - start > gapLength) {
                gapPos = start;
                gapLength = i - start;
            }
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == gapPos) {
                out.append(i == 0 ? "::" : ":");
                i += gapLength - 1;
            } else if (i == 6 && gapPos == 0 && (gapLength == 6 || gapLength == 5 && words[5] == 0xffff)) {
                return out.append(inet4(b, 12)).toString();
            } else {
                out.append(Integer.toHexString(words[i]));
                if (i != 7) {
                    out.append(':');
                }
            }
        }
        return out.toString();
    }
}
