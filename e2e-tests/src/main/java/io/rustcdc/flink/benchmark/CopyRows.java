package io.rustcdc.flink.benchmark;

import java.io.OutputStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rows of a PostgreSQL {@code COPY ... TO STDOUT} as its bytes arrive, counted into {@code read} every {@link
 * LimitReadJob#BATCH} rows and at {@link #close}, for {@link LimitReadJob}: nothing is decoded.
 */
abstract class CopyRows extends OutputStream {
    private final AtomicLong read;
    private long rows;

    CopyRows(AtomicLong read) {
        this.read = read;
    }

    final void row() {
        if (++rows == LimitReadJob.BATCH) {
            flushRows();
        }
    }

    @Override
    public abstract void write(byte[] bytes, int offset, int length);

    @Override
    public final void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    private void flushRows() {
        read.addAndGet(rows);
        rows = 0;
    }

    @Override
    public final void close() {
        flushRows();
    }

    /** The rows of a text COPY: its line ends (a newline within a value is escaped as {@code \n}). */
    static final class Text extends CopyRows {
        Text(AtomicLong read) {
            super(read);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            for (int i = offset; i < offset + length; i++) {
                if (bytes[i] == '\n') {
                    row();
                }
            }
        }
    }

    /**
     * The rows of a binary COPY, by its framing alone: after the header (signature, flags, the extension's length
     * and the extension), each row's 16-bit field count and each field's 32-bit length (-1 for NULL) and bytes;
     * a field count of -1 ends the data. Nothing is decoded.
     */
    static final class Binary extends CopyRows {
        private static final int EXTENSION_LENGTH = 0;
        private static final int FIELD_COUNT = 1;
        private static final int FIELD_LENGTH = 2;
        private static final int END = 3;
        /** Bytes to pass over before the next integer: at first the signature (11) and the flags (4). */
        private long skip = 15;
        private int next = EXTENSION_LENGTH;
        private int width = 4;
        private int have;
        private int value;
        private int fieldsLeft;

        Binary(AtomicLong read) {
            super(read);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            int i = offset;
            int end = offset + length;
            while (i < end) {
                if (skip > 0) {
                    int n = (int) Math.min(skip, end - i);
                    skip -= n;
                    i += n;
                    continue;
                }
                value = value << 8 | bytes[i++] & 0xFF;
                if (++have == width) {
                    integer(width == 2 ? (short) value : value);
                    have = 0;
                    value = 0;
                }
            }
        }

        private void integer(int n) {
            switch (next) {
                case EXTENSION_LENGTH:
                    skip = n;
                    expect(FIELD_COUNT);
                    break;
                case FIELD_COUNT:
                    if (n == -1) {
                        next = END;
                        break;
                    }
                    row();
                    fieldsLeft = n;
                    if (n > 0) {
                        expect(FIELD_LENGTH);
                    }
                    break;
                case FIELD_LENGTH:
                    skip = Math.max(n, 0);
                    if (--fieldsLeft == 0) {
                        expect(FIELD_COUNT);
                    }
                    break;
                default:
                    throw new IllegalStateException("Bytes after the binary COPY's end");
            }
        }

        private void expect(int what) {
            next = what;
            width = what == FIELD_COUNT ? 2 : 4;
        }
    }
}
