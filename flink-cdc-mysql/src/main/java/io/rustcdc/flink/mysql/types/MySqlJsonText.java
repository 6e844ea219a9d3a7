package io.rustcdc.flink.mysql.types;

import com.github.shyiko.mysql.binlog.event.deserialization.AbstractRowsEventDataDeserializer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Oracle MySQL's binary JSON (the binlog's JSON cells) as the text the server gives for the same
 * document in a query, byte for byte ({@code Json_wrapper::to_string}): {@code {"k": v, "k2": v2}}
 * and {@code [a, b]} with a space after each comma and colon, keys in their stored order, strings
 * escaped as the server escapes them, doubles as {@link MySqlDoubleText}, decimals with their scale,
 * dates and times inside JSON as quoted text with six fractional digits, other opaque values as
 * {@code "base64:typeNN:..."}.
 */
final class MySqlJsonText {
    private static final int SMALL_OBJECT = 0x00, LARGE_OBJECT = 0x01, SMALL_ARRAY = 0x02, LARGE_ARRAY = 0x03,
            LITERAL = 0x04, INT16 = 0x05, UINT16 = 0x06, INT32 = 0x07, UINT32 = 0x08, INT64 = 0x09, UINT64 = 0x0a,
            DOUBLE = 0x0b, STRING = 0x0c, OPAQUE = 0x0f;
    // field types of opaque values the server prints as text
    private static final int TIMESTAMP = 7, DATE = 10, TIME = 11, DATETIME = 12, VAR_STRING = 253, NEWDECIMAL = 246;
    private static final int MAX_DEPTH = 100;

    private final byte[] doc;
    private final StringBuilder out = new StringBuilder();

    private MySqlJsonText(byte[] doc) {
        this.doc = doc;
    }

    /**
     * The document's text; an empty cell is JSON {@code null}, as the server reads it.
     *
     * @throws IllegalArgumentException when the bytes are no binary JSON
     */
    static String text(byte[] doc) {
        if (doc.length == 0) {
            return "null";
        }
        MySqlJsonText text = new MySqlJsonText(doc);
        try {
            text.value(doc[0] & 0xff, 1, 0);
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("binary JSON ends early", e);
        }
        return text.out.toString();
    }

    private void value(int type, int at, int depth) {
        switch (type) {
            case SMALL_OBJECT:
            case LARGE_OBJECT:
                container(at, type == LARGE_OBJECT, true, depth + 1);
                break;
            case SMALL_ARRAY:
            case LARGE_ARRAY:
                container(at, type == LARGE_ARRAY, false, depth + 1);
                break;
            case LITERAL:
                literal(doc[at] & 0xff);
                break;
            case INT16:
                out.append((short) little(at, 2));
                break;
            case UINT16:
                out.append(little(at, 2));
                break;
            case INT32:
                out.append((int) little(at, 4));
                break;
            case UINT32:
                out.append(little(at, 4));
                break;
            case INT64:
                out.append(little(at, 8));
                break;
            case UINT64:
                out.append(Long.toUnsignedString(little(at, 8)));
                break;
            case DOUBLE:
                out.append(MySqlDoubleText.json(Double.longBitsToDouble(little(at, 8))));
                break;
            case STRING: {
                long[] length = variableLength(at);
                quoted(new String(doc, (int) length[1], (int) length[0], StandardCharsets.UTF_8));
                break;
            }
            case OPAQUE:
                opaque(at);
                break;
            default:
                throw new IllegalArgumentException("binary JSON value type " + type);
        }
    }

    private void container(int at, boolean large, boolean object, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("binary JSON nested deeper than " + MAX_DEPTH);
        }
        int size = large ? 4 : 2;
        int count = (int) little(at, size);
        int keys = at + 2 * size;
        int values = object ? keys + count * (size + 2) : keys;
        out.append(object ? '{' : '[');
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                out.append(", ");
            }
            if (object) {
                int key = keys + i * (size + 2);
                int offset = (int) little(key, size);
                int length = (int) little(key + size, 2);
                quoted(new String(doc, at + offset, length, StandardCharsets.UTF_8));
                out.append(": ");
            }
            int entry = values + i * (1 + size);
            int type = doc[entry] & 0xff;
            if (inlined(type, large)) {
                value(type, entry + 1, depth);
            } else {
                value(type, at + (int) little(entry + 1, size), depth);
            }
        }
        out.append(object ? '}' : ']');
    }

    private static boolean inlined(int type, boolean large) {
        return type == LITERAL || type == INT16 || type == UINT16 || large && (type == INT32 || type == UINT32);
    }

    private void literal(int literal) {
        switch (literal) {
            case 0:
                out.append("null");
                break;
            case 1:
                out.append("true");
                break;
            case 2:
                out.append("false");
                break;
            default:
                throw new IllegalArgumentException("binary JSON literal " + literal);
        }
    }

    private void opaque(int at) {
        int fieldType = doc[at] & 0xff;
        long[] length = variableLength(at + 1);
        int start = (int) length[1];
        int end = start + (int) length[0];
        if (end > doc.length) {
            throw new IndexOutOfBoundsException("opaque value past the document's end");
        }
        switch (fieldType) {
            case NEWDECIMAL: {
                int precision = doc[start] & 0xff;
                int scale = doc[start + 1] & 0xff;
                byte[] bin = java.util.Arrays.copyOfRange(doc, start + 2, end);
                out.append(AbstractRowsEventDataDeserializer.asBigDecimal(precision, scale, bin).toPlainString());
                break;
            }
            case DATE:
            case DATETIME:
            case TIMESTAMP:
                out.append('"').append(datetime(little(start, 8), fieldType == DATE)).append('"');
                break;
            case TIME:
                out.append('"').append(time(little(start, 8))).append('"');
                break;
            case VAR_STRING:
                quoted(new String(doc, start, end - start, StandardCharsets.UTF_8));
                break;
            default:
                quoted("base64:type" + fieldType + ":" + base64(java.util.Arrays.copyOfRange(doc, start, end)));
        }
    }

    /** The server's packed DATETIME (and DATE): ymd << 17 | hms in the integer part, microseconds below 2^24. */
    private static String datetime(long packed, boolean dateOnly) {
        boolean negative = packed < 0;
        long tmp = Math.abs(packed);
        long micros = tmp % (1L << 24);
        long ymdhms = tmp >> 24;
        long ymd = ymdhms >> 17;
        long ym = ymd >> 5;
        long hms = ymdhms % (1L << 17);
        String date = String.format("%s%04d-%02d-%02d", negative ? "-" : "", ym / 13, ym % 13, ymd % (1 << 5));
        if (dateOnly) {
            return date;
        }
        return date + String.format(" %02d:%02d:%02d.%06d", hms >> 12, (hms >> 6) % (1 << 6), hms % (1 << 6), micros);
    }

    /** The server's packed TIME: hour << 12 | minute << 6 | second in the integer part, microseconds below. */
    private static String time(long packed) {
        boolean negative = packed < 0;
        long tmp = Math.abs(packed);
        long hms = tmp >> 24;
        return String.format("%s%02d:%02d:%02d.%06d", negative ? "-" : "", (hms >> 12) % (1 << 10),
                (hms >> 6) % (1 << 6), hms % (1 << 6), tmp % (1L << 24));
    }

    /** The server's base64_encode: a line break after every 76 characters. */
    private static String base64(byte[] data) {
        String plain = Base64.getEncoder().encodeToString(data);
        StringBuilder lines = new StringBuilder(plain.length() + plain.length() / 76);
        for (int i = 0; i < plain.length(); i += 76) {
            if (i > 0) {
                lines.append('\n');
            }
            lines.append(plain, i, Math.min(plain.length(), i + 76));
        }
        return lines.toString();
    }

    /** {@code double_quote}: '"', '\\' and the controls up to 0x1f escaped, \\u00xx in lower case. */
    private void quoted(String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"':
                case '\\':
                    out.append('\\').append(c);
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                default:
                    if (c <= 0x1f) {
                        out.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xf, 16));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }

    private long little(int at, int bytes) {
        if (at + bytes > doc.length) {
            throw new IndexOutOfBoundsException("binary JSON ends early");
        }
        long v = 0;
        for (int i = bytes - 1; i >= 0; i--) {
            v = (v << 8) | (doc[at + i] & 0xff);
        }
        return v;
    }

    /** A length of 7 bits per byte, low bits first: {length, where the data starts}. */
    private long[] variableLength(int at) {
        long length = 0;
        for (int i = 0; i < 5; i++) {
            int b = doc[at + i] & 0xff;
            length |= (long) (b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0) {
                if (at + i + 1 + length > doc.length) {
                    throw new IndexOutOfBoundsException("binary JSON string past the document's end");
                }
                return new long[] {length, at + i + 1};
            }
        }
        throw new IllegalArgumentException("binary JSON length longer than 5 bytes");
    }
}
