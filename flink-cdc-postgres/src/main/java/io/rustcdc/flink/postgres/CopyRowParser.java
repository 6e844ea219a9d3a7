package io.rustcdc.flink.postgres;

import java.nio.charset.StandardCharsets;

/**
 * Splits one row of {@code COPY ... TO STDOUT} text format into its columns' text: tab between
 * columns, {@code \N} for NULL, backslash escapes for special characters. The column text is what
 * the type's output function wrote, the same text pgoutput sends. Not thread-safe: it reuses a
 * buffer across rows.
 */
final class CopyRowParser {
    private byte[] scratch = new byte[256];

    /**
     * Fills {@code columns} with the text of each column of {@code row} (which may end in a
     * newline), null for NULL.
     *
     * @throws IllegalStateException when the row does not have exactly {@code columns.length} columns
     */
    void parse(byte[] row, String[] columns) {
        int end = row.length;
        if (end > 0 && row[end - 1] == '\n') {
            end--;
        }
        int start = 0;
        int column = 0;
        while (true) {
            int tab = start;
            boolean escaped = false;
            while (tab < end && row[tab] != '\t') {
                escaped |= row[tab] == '\\';
                tab++;
            }
            if (column == columns.length) {
                throw new IllegalStateException("COPY sent more than " + columns.length + " columns");
            }
            columns[column++] = text(row, start, tab, escaped);
            if (tab >= end) {
                break;
            }
            start = tab + 1;
        }
        if (column != columns.length) {
            throw new IllegalStateException("COPY sent " + column + " columns, expected " + columns.length);
        }
    }

    private String text(byte[] row, int from, int to, boolean escaped) {
        if (!escaped) {
            return new String(row, from, to - from, StandardCharsets.UTF_8);
        }
        if (to - from == 2 && row[from] == '\\' && row[from + 1] == 'N') {
            return null;
        }
        if (scratch.length < to - from) {
            scratch = new byte[Math.max(to - from, scratch.length * 2)];
        }
        int n = 0;
        for (int i = from; i < to; i++) {
            byte b = row[i];
            if (b != '\\' || i + 1 >= to) {
                scratch[n++] = b;
                continue;
            }
            byte c = row[++i];
            switch (c) {
                case 'b':
                    scratch[n++] = '\b';
                    break;
                case 'f':
                    scratch[n++] = '\f';
                    break;
                case 'n':
                    scratch[n++] = '\n';
                    break;
                case 'r':
                    scratch[n++] = '\r';
                    break;
                case 't':
                    scratch[n++] = '\t';
                    break;
                case 'v':
                    scratch[n++] = 0x0B;
                    break;
                case 'x': {
                    int value = 0;
                    int digits = 0;
                    while (digits < 2 && i + 1 < to && hex(row[i + 1]) >= 0) {
                        value = value * 16 + hex(row[++i]);
                        digits++;
                    }
                    scratch[n++] = (byte) value;
                    break;
                }
                default:
                    if (c >= '0' && c <= '7') {
                        int value = c - '0';
                        int digits = 1;
                        while (digits < 3 && i + 1 < to && row[i + 1] >= '0' && row[i + 1] <= '7') {
                            value = value * 8 + (row[++i] - '0');
                            digits++;
                        }
                        scratch[n++] = (byte) value;
                    } else {
                        scratch[n++] = c; // \\ and any other escaped character stand for themselves
                    }
            }
        }
        return new String(scratch, 0, n, StandardCharsets.UTF_8);
    }

    private static int hex(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }
}
