package io.rustcdc.flink.source.json;

import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.io.NumberOutput;
import io.rustcdc.flink.source.model.PositionText;
import io.rustcdc.flink.source.model.RowType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * A JSON document written straight into a reused, growable UTF-8 byte array: each string is encoded
 * and escaped once, with no generator, char buffer or intermediate String per event. It writes the
 * same bytes Jackson's UTF-8 generator wrote (with this project's settings: shortest exact digits
 * for floating point, supplementary characters as 4-byte UTF-8), and {@link #toString()} gives the
 * same characters Jackson's character generator wrote, which keeps an unpaired surrogate as it is
 * where the byte form escapes it (&#92;uD800). Commas and nesting are the caller's: a value or a
 * field name is written after {@link #comma()} where one is needed. A source position writes its text
 * into it ({@link PositionText}) between quotes the caller writes. Not thread-safe: one per thread.
 */
@Internal
final class JsonBuffer implements PositionText {
    private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
    /** 00, 01, ... 99: a number's digits are written two at a time. */
    private static final byte[] DIGIT_PAIRS = new byte[200];
    /** Per ASCII character: 0 written as is, -1 as a six-character unicode escape, else the letter after a backslash. */
    private static final byte[] ESCAPES = new byte[128];

    static {
        for (int i = 0; i < 100; i++) {
            DIGIT_PAIRS[2 * i] = (byte) ('0' + i / 10);
            DIGIT_PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
        for (int c = 0; c < 0x20; c++) {
            ESCAPES[c] = -1;
        }
        ESCAPES['\b'] = 'b';
        ESCAPES['\t'] = 't';
        ESCAPES['\n'] = 'n';
        ESCAPES['\f'] = 'f';
        ESCAPES['\r'] = 'r';
        ESCAPES['"'] = '"';
        ESCAPES['\\'] = '\\';
    }

    /** Slots of {@link #known}'s strings, a power of two. */
    private static final int KNOWN_SLOTS = 16;
    /** The longest string {@link #known} keeps. */
    private static final int KNOWN_LENGTH = 64;

    private byte[] bytes;
    /** {@link #known}'s strings and, in the same slot, each as written: quoted and escaped. */
    private final String[] knownStrings = new String[KNOWN_SLOTS];
    private final byte[][] knownJson = new byte[KNOWN_SLOTS][];
    /** A string's characters, copied at once: reading a char[] is faster than String.charAt in the loop. */
    private char[] chars = new char[256];
    private final FieldNames fieldNames = new FieldNames();
    private int length;
    /** Whether an unpaired surrogate was written, as 3 bytes that UTF-8 does not allow ({@link #toString()}). */
    private boolean unpairedSurrogate;
    /** Whether an unpaired surrogate is written escaped (the byte form) or kept for {@link #toString()}. */
    private boolean escapeUnpaired;

    JsonBuffer(int capacity) {
        bytes = new byte[capacity];
    }

    /**
     * Empties the buffer for a new document; {@code forBytes}: whether it will be taken as bytes
     * ({@link #toByteArray()}) rather than as a String.
     */
    JsonBuffer reset(boolean forBytes) {
        if (bytes.length > 1 << 20) {
            bytes = new byte[4096]; // a huge event once does not pin a huge buffer
        }
        if (chars.length > 1 << 19) {
            chars = new char[256];
        }
        length = 0;
        unpairedSurrogate = false;
        escapeUnpaired = forBytes;
        return this;
    }

    private void room(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }

    /** A single ASCII character: a bracket, a brace, a colon or a comma. */
    JsonBuffer ascii(char c) {
        room(1);
        bytes[length++] = (byte) c;
        return this;
    }

    JsonBuffer comma() {
        return ascii(',');
    }

    /** Bytes already JSON: a pre-quoted field name with its colon, a cached object. */
    JsonBuffer raw(byte[] json) {
        room(json.length);
        System.arraycopy(json, 0, bytes, length, json.length);
        length += json.length;
        return this;
    }

    /** ASCII text already JSON, such as a number's digits; not checked. */
    JsonBuffer rawAscii(String text) {
        int n = text.length();
        room(n);
        text.getBytes(0, n, bytes, length); // ASCII: each char's low byte is the char
        length += n;
        return this;
    }

    /** A field name and its colon. */
    JsonBuffer name(String name) {
        string(name);
        return ascii(':');
    }

    /** The name of {@code type}'s field {@code i} and its colon, as {@link #name(String)} writes it ({@link FieldNames}). */
    JsonBuffer name(RowType type, int i) {
        byte[] encoded = fieldNames.of(type)[i];
        return encoded != null ? raw(encoded) : name(type.name(i));
    }

    /** {@code "name":} as bytes, to be written with {@link #raw}. */
    static byte[] fieldName(String name) {
        return ("\"" + name + "\":").getBytes(StandardCharsets.UTF_8); // names given here need no escaping
    }

    JsonBuffer nullValue() {
        return rawAscii("null");
    }

    JsonBuffer bool(boolean b) {
        return rawAscii(b ? "true" : "false");
    }

    JsonBuffer number(long n) {
        if (n == Long.MIN_VALUE) {
            return rawAscii("-9223372036854775808");
        }
        room(20);
        if (n < 0) {
            bytes[length++] = '-';
            n = -n;
        }
        int digits = 1;
        for (long bound = 10; digits < 19 && n >= bound; bound *= 10) { // comparisons, not divisions
            digits++;
        }
        length += digits;
        int at = length;
        while (n > Integer.MAX_VALUE) {
            long q = n / 100;
            at = pair(at, (int) (n - q * 100));
            n = q;
        }
        int v = (int) n;
        while (v >= 100) {
            int q = v / 100;
            at = pair(at, v - q * 100);
            v = q;
        }
        if (v >= 10) {
            pair(at, v);
        } else {
            bytes[at - 1] = (byte) ('0' + v);
        }
        return this;
    }

    /** Writes {@code two} (0 to 99) as two digits ending before {@code end}; returns where they start. */
    private int pair(int end, int two) {
        bytes[end - 1] = DIGIT_PAIRS[2 * two + 1];
        bytes[end - 2] = DIGIT_PAIRS[2 * two];
        return end - 2;
    }

    /** A non-negative number's digits, zero-padded on the left to at least {@code width} digits. */
    JsonBuffer padded(long n, int width) {
        if (n < 0) {
            throw new IllegalArgumentException("negative: " + n);
        }
        if (n < 100 && width == 2) { // most of a timestamp: month, day, hour, minute, second
            room(2);
            int two = (int) n;
            bytes[length++] = (byte) ('0' + two / 10);
            bytes[length++] = (byte) ('0' + two % 10);
            return this;
        }
        if (n > Integer.MAX_VALUE) {
            return paddedLong(n, width);
        }
        int v = (int) n;
        int digits = 1;
        for (int bound = 10; digits < 10 && v >= bound; bound *= 10) { // comparisons, not divisions
            digits++;
        }
        int shown = Math.max(digits, width);
        room(shown);
        int end = length + shown;
        int at = end;
        while (v >= 100) {
            int q = v / 100;
            at = pair(at, v - q * 100);
            v = q;
        }
        if (v >= 10) {
            at = pair(at, v);
        } else {
            bytes[--at] = (byte) ('0' + v);
        }
        while (at > length) {
            bytes[--at] = '0';
        }
        length = end;
        return this;
    }

    private JsonBuffer paddedLong(long n, int width) {
        int digits = 1;
        for (long rest = n / 10; rest != 0; rest /= 10) {
            digits++;
        }
        int shown = Math.max(digits, width);
        room(shown);
        int at = length + shown;
        for (int i = 0; i < shown; i++) {
            bytes[--at] = (byte) ('0' + (int) (n % 10));
            n /= 10;
        }
        length += shown;
        return this;
    }

    /** A finite double in Jackson's shortest exact form ({@code 1.0E23}, {@code 0.1}). */
    JsonBuffer number(double d) {
        return rawAscii(NumberOutput.toString(d, true));
    }

    /** A finite float in Jackson's shortest exact form. */
    JsonBuffer number(float f) {
        return rawAscii(NumberOutput.toString(f, true));
    }

    /** Base64 (MIME alphabet with padding, no line feeds) in quotes, as Jackson writes binary. */
    JsonBuffer base64(byte[] data) {
        ascii('"');
        rawAscii(Base64Variants.getDefaultVariant().encode(data));
        return ascii('"');
    }

    /** A string value, quoted and escaped; {@code null} for null. */
    JsonBuffer string(@Nullable String s) {
        if (s == null) {
            return nullValue();
        }
        room(s.length() * 6 + 2); // the widest form of a char: a six-character unicode escape
        bytes[length++] = '"';
        length = escape(s, bytes, length);
        bytes[length++] = '"';
        return this;
    }

    /**
     * {@link #string(String)} for a string written again and again, such as a table's or a connector's name: the
     * bytes it was written as are kept (a few, by its hash) and copied when an equal string comes again. A string
     * with a surrogate is written anew each time: an unpaired one is written differently in the byte form.
     */
    JsonBuffer known(@Nullable String s) {
        if (s == null || s.length() > KNOWN_LENGTH) {
            return string(s);
        }
        int slot = s.hashCode() & (KNOWN_SLOTS - 1);
        String kept = knownStrings[slot];
        if (kept == s || s.equals(kept)) {
            return raw(knownJson[slot]);
        }
        int start = length;
        string(s);
        for (int i = 0; i < s.length(); i++) {
            if (Character.isSurrogate(s.charAt(i))) {
                return this;
            }
        }
        knownJson[slot] = Arrays.copyOfRange(bytes, start, length);
        knownStrings[slot] = s;
        return this;
    }

    /** Characters of a string value, escaped, inside quotes the caller writes. */
    @Override
    public JsonBuffer text(String s) {
        room(s.length() * 6);
        length = escape(s, bytes, length);
        return this;
    }

    /** The same digits as {@link #number(long)}, inside quotes the caller writes. */
    @Override
    public JsonBuffer decimal(long n) {
        return number(n);
    }

    @Override
    public JsonBuffer hex(long n, int width) {
        int digits = Math.max(1, (67 - Long.numberOfLeadingZeros(n)) / 4);
        int shown = Math.max(digits, width);
        room(shown);
        int at = length + shown;
        for (int i = 0; i < shown; i++) {
            bytes[--at] = HEX[(int) (n & 0xF)];
            n >>>= 4;
        }
        length += shown;
        return this;
    }

    /**
     * Writes {@code s} escaped from {@code at} in {@code b}, which has room for 6 bytes a char; returns the end. The
     * characters that are written as they are (ASCII but quotes, backslashes and controls) are copied in a first,
     * tight loop; the rest from the first other one.
     */
    private int escape(String s, byte[] b, int at) {
        int n = s.length();
        if (chars.length < n) {
            chars = new char[Math.max(n, chars.length * 2)];
        }
        char[] cs = chars;
        s.getChars(0, n, cs, 0);
        int i = 0;
        for (; i < n; i++) {
            char c = cs[i];
            if (c >= 0x80 || ESCAPES[c] != 0) {
                break;
            }
            b[at + i] = (byte) c;
        }
        at += i;
        for (; i < n; i++) {
            char c = cs[i];
            if (c < 0x80) {
                byte escape = ESCAPES[c];
                if (escape == 0) {
                    b[at++] = (byte) c;
                } else if (escape > 0) {
                    b[at++] = '\\';
                    b[at++] = escape;
                } else {
                    at = unicodeEscape(b, at, c);
                }
            } else if (c < 0x800) {
                b[at++] = (byte) (0xC0 | (c >> 6));
                b[at++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(cs[i + 1])) {
                int cp = Character.toCodePoint(c, cs[++i]);
                b[at++] = (byte) (0xF0 | (cp >> 18));
                b[at++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                b[at++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                b[at++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c) && escapeUnpaired) {
                at = unicodeEscape(b, at, c);
            } else {
                unpairedSurrogate |= Character.isSurrogate(c);
                b[at++] = (byte) (0xE0 | (c >> 12));
                b[at++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                b[at++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return at;
    }

    private static int unicodeEscape(byte[] b, int at, char c) {
        b[at++] = '\\';
        b[at++] = 'u';
        b[at++] = HEX[c >> 12];
        b[at++] = HEX[(c >> 8) & 0xF];
        b[at++] = HEX[(c >> 4) & 0xF];
        b[at++] = HEX[c & 0xF];
        return at;
    }

    boolean hasUnpairedSurrogate() {
        return unpairedSurrogate;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }

    /** The document as characters: ASCII and valid UTF-8 decode at once; an unpaired surrogate by hand. */
    @Override
    public String toString() {
        if (!unpairedSurrogate) {
            return new String(bytes, 0, length, StandardCharsets.UTF_8);
        }
        char[] chars = new char[length];
        int n = 0;
        for (int i = 0; i < length; ) {
            int b = bytes[i] & 0xFF;
            if (b < 0x80) {
                chars[n++] = (char) b;
                i++;
            } else if (b < 0xE0) {
                chars[n++] = (char) (((b & 0x1F) << 6) | (bytes[i + 1] & 0x3F));
                i += 2;
            } else if (b < 0xF0) {
                chars[n++] = (char) (((b & 0x0F) << 12) | ((bytes[i + 1] & 0x3F) << 6) | (bytes[i + 2] & 0x3F));
                i += 3;
            } else {
                int cp = ((b & 0x07) << 18) | ((bytes[i + 1] & 0x3F) << 12) | ((bytes[i + 2] & 0x3F) << 6)
                        | (bytes[i + 3] & 0x3F);
                chars[n++] = Character.highSurrogate(cp);
                chars[n++] = Character.lowSurrogate(cp);
                i += 4;
            }
        }
        return new String(chars, 0, n);
    }
}
