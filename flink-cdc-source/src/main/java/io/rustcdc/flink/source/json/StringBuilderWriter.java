package io.rustcdc.flink.source.json;

import java.io.Writer;
import org.apache.flink.annotation.Internal;

/**
 * A writer into a growable char array: unlike StringWriter, without a lock on every write, and
 * unlike a StringBuilder, without checking each char for the compact string form as it is
 * appended; the one String made at the end is compacted at once.
 */
@Internal
final class StringBuilderWriter extends Writer {
    private char[] chars;
    private int length;

    StringBuilderWriter(int capacity) {
        chars = new char[capacity];
    }

    void reset() {
        if (chars.length > 1 << 20) {
            chars = new char[4096]; // a huge event once does not pin a huge buffer
        }
        length = 0;
    }

    private void room(int more) {
        if (length + more > chars.length) {
            chars = java.util.Arrays.copyOf(chars, Math.max(chars.length * 2, length + more));
        }
    }

    @Override
    public void write(char[] buffer, int offset, int count) {
        room(count);
        System.arraycopy(buffer, offset, chars, length, count);
        length += count;
    }

    @Override
    public void write(String str, int offset, int count) {
        room(count);
        str.getChars(offset, offset + count, chars, length);
        length += count;
    }

    @Override
    public void write(int c) {
        room(1);
        chars[length++] = (char) c;
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}

    @Override
    public String toString() {
        return new String(chars, 0, length);
    }
}
