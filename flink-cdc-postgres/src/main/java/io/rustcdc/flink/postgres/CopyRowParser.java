package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.model.Row;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Splits one row of {@code COPY ... TO STDOUT} text format into its columns' text: tab between
 * columns, {@code \N} for NULL, backslash escapes for special characters. The column text is what
 * the type's output function wrote, the same text pgoutput sends. Not thread-safe: it reuses buffers
 * across rows.
 */
final class CopyRowParser {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long TABS = ONES * '\t';
    private static final long BACKSLASHES = ONES * '\\';
    private byte[] scratch = new byte[256];
    /** Of each column of the row last split: where its text starts and ends, and whether it has a backslash. */
    private int[] starts = new int[16];
    private int[] ends = new int[16];
    private boolean[] escaped = new boolean[16];

    /**
     * Sets each column of {@code out} to the value {@code decoder} reads from the column's text in
     * {@code row} (which may end in a newline), in place where the text has no escapes.
     *
     * @throws CopyFormatException when the row does not have exactly as many columns as the decoder
     */
    void decode(byte[] row, RowDecoder decoder, Row.Builder out) {
        int count = decoder.size();
        split(row, count);
        for (int i = 0; i < count; i++) {
            int from = starts[i];
            int to = ends[i];
            if (!escaped[i]) {
                out.set(i, decoder.decode(i, row, from, to));
            } else if (isNull(row, from, to)) {
                out.set(i, null);
            } else {
                int length = unescape(row, from, to); // first: it may replace the scratch buffer
                out.set(i, decoder.decode(i, scratch, 0, length));
            }
        }
    }

    /**
     * Fills {@code columns} with the text of each column of {@code row} (which may end in a
     * newline), null for NULL.
     *
     * @throws CopyFormatException when the row does not have exactly {@code columns.length} columns
     */
    void parse(byte[] row, String[] columns) {
        split(row, columns.length);
        for (int i = 0; i < columns.length; i++) {
            int from = starts[i];
            int to = ends[i];
            if (!escaped[i]) {
                columns[i] = new String(row, from, to - from, StandardCharsets.UTF_8);
            } else if (isNull(row, from, to)) {
                columns[i] = null;
            } else {
                int length = unescape(row, from, to); // first: it may replace the scratch buffer
                columns[i] = new String(scratch, 0, length, StandardCharsets.UTF_8);
            }
        }
    }

    private void split(byte[] row, int expected) {
        if (starts.length < expected) {
            starts = new int[expected];
            ends = new int[expected];
            escaped = new boolean[expected];
        }
        int end = row.length;
        if (end > 0 && row[end - 1] == '\n') {
            end--;
        }
        int start = 0;
        int column = 0;
        while (true) {
            int tab = start;
            boolean backslash = false;
            // eight bytes at a time while they hold no tab, then byte by byte
            while (tab + Long.BYTES <= end) {
                long word = (long) LONGS.get(row, tab);
                long tabs = zeroBytes(word ^ TABS);
                long backslashes = zeroBytes(word ^ BACKSLASHES);
                if (tabs != 0) {
                    backslash |= backslashes != 0 && Long.numberOfTrailingZeros(backslashes) < Long.numberOfTrailingZeros(tabs);
                    tab += Long.numberOfTrailingZeros(tabs) >>> 3;
                    break;
                }
                backslash |= backslashes != 0;
                tab += Long.BYTES;
            }
            while (tab < end && row[tab] != '\t') {
                backslash |= row[tab] == '\\';
                tab++;
            }
            if (column == expected) {
                throw new CopyFormatException("COPY sent more than " + expected + " columns");
            }
            starts[column] = start;
            ends[column] = tab;
            escaped[column++] = backslash;
            if (tab >= end) {
                break;
            }
            start = tab + 1;
        }
        if (column != expected) {
            throw new CopyFormatException("COPY sent " + column + " columns, expected " + expected);
        }
    }

    /**
     * The high bit of each byte of {@code x} that is zero, and of no byte below the first such: the lowest set bit
     * marks the first zero byte exactly (the bytes are read little-endian, so the lowest is the first).
     */
    private static long zeroBytes(long x) {
        return (x - ONES) & ~x & HIGHS;
    }

    private static boolean isNull(byte[] row, int from, int to) {
        return to - from == 2 && row[from] == '\\' && row[from + 1] == 'N';
    }

    /** Writes the text {@code row[from, to)} without its escapes into {@code scratch}; returns its length. */
    private int unescape(byte[] row, int from, int to) {
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
        return n;
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
