package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowType;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Reads {@code COPY ... TO STDOUT (FORMAT binary)}, one CopyData message at a time: the header (signature,
 * flags, header extension) before the first row, then each row as its field count and each field as its length
 * (-1 for NULL) and bytes, then a field count of -1 at the end. PostgreSQL sends a row per message, the header
 * with the first; the rows are read wherever they fall. One parser reads one {@code COPY}. Not thread-safe.
 */
final class CopyBinaryParser {
    private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0};
    /** The flags a reader must know (bits 0 to 15) and the one that says each row has an OID (16): none is set. */
    private static final int KNOWN_ONLY = 0x1FFFF;

    private final RowDecoder decoder;
    private final RowType rowType;
    private boolean headerRead;
    private boolean ended;

    CopyBinaryParser(RowDecoder decoder) {
        if (!decoder.binary()) {
            throw new IllegalArgumentException("Not every column of " + decoder.rowType() + " is read in binary");
        }
        this.decoder = decoder;
        this.rowType = decoder.rowType();
    }

    /**
     * Passes each row of {@code message} to {@code out}, decoded.
     *
     * @throws CopyFormatException when the message is not binary {@code COPY} of as many columns as the decoder
     */
    void rows(byte[] message, Consumer<Row> out) {
        int at = 0;
        if (!headerRead) {
            at = header(message);
            headerRead = true;
        }
        while (at < message.length) {
            if (ended) {
                throw new CopyFormatException("COPY sent data after its end");
            }
            int count = int16(message, at);
            at += 2;
            if (count == -1) {
                ended = true;
                continue;
            }
            if (count != decoder.size()) {
                throw new CopyFormatException("COPY sent " + count + " columns, expected " + decoder.size());
            }
            Row.Builder row = Row.builder(rowType);
            for (int i = 0; i < count; i++) {
                int length = int32(message, at);
                at += 4;
                if (length == -1) {
                    row.set(i, null);
                    continue;
                }
                if (length < 0 || length > message.length - at) {
                    throw new CopyFormatException("COPY sent a field longer than its message");
                }
                row.set(i, decoder.decodeBinary(i, message, at, at + length));
                at += length;
            }
            out.accept(row.build());
        }
    }

    /**
     * Checks, once {@code COPY} ended, that it sent the header and the end: a read cut short must not pass for
     * a whole chunk.
     *
     * @throws CopyFormatException when it did not
     */
    void finish() {
        if (!ended) {
            throw new CopyFormatException("COPY ended without the binary format's end marker");
        }
    }

    private static int header(byte[] message) {
        int fixed = SIGNATURE.length + 8;
        if (message.length < fixed || !Arrays.equals(message, 0, SIGNATURE.length, SIGNATURE, 0, SIGNATURE.length)) {
            throw new CopyFormatException("COPY did not start with the binary format's signature");
        }
        int flags = int32(message, SIGNATURE.length);
        int extension = int32(message, SIGNATURE.length + 4);
        if ((flags & KNOWN_ONLY) != 0 || extension < 0 || extension > message.length - fixed) {
            throw new CopyFormatException("COPY's binary header is not one this reader knows");
        }
        return fixed + extension;
    }

    private static int int16(byte[] b, int at) {
        if (at + 2 > b.length) {
            throw new CopyFormatException("COPY sent a row cut short");
        }
        return (short) ((b[at] & 0xFF) << 8 | (b[at + 1] & 0xFF));
    }

    private static int int32(byte[] b, int at) {
        if (at + 4 > b.length) {
            throw new CopyFormatException("COPY sent a row cut short");
        }
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }
}
