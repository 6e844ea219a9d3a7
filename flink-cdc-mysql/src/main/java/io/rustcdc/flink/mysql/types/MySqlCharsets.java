package io.rustcdc.flink.mysql.types;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.util.Locale;
import java.util.Map;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * MySQL character sets as Java charsets, and strict decoding: bytes invalid in the column's
 * character set fail instead of turning into replacement characters.
 */
@Internal
public final class MySqlCharsets {
    /** The binary pseudo character set (collation 63): bytes, never text. */
    public static final String BINARY = "binary";

    /** Why a column of a character set left out cannot be captured, and the remedy. */
    static final String NOT_EXACT = "is not decoded exactly here (Java lacks it, or maps some of its characters "
            + "to others than the server does); convert the column to utf8mb4";

    /** MySQL's latin1 is windows-1252, except that it also defines the five bytes Java's leaves undefined. */
    private static final String LATIN1 = "windows-1252";
    /** Oracle MySQL's gb18030 (GB18030-2005), decoded by Java's and corrected by {@link MySqlGb18030}. */
    private static final String GB18030 = "GB18030";
    /** MySQL's euckr holds the Unified Hangul Code extension (cp949), but not its private use area. */
    private static final String EUCKR = "x-windows-949";

    /**
     * Character sets whose Java decoding agrees with the server's conversion for every byte
     * sequence (checked against the server, byte by byte, by a test). Left out because Java maps some
     * sequences to other characters than the server does: big5, cp1256, cp866, eucjpms, gbk, greek,
     * hebrew, koi8u, sjis, tis620, ujis; and armscii8, dec8, hp8, keybcs2, swe7, geostd8, which Java
     * lacks.
     */
    private static final Map<String, String> JAVA_NAMES = Map.ofEntries(
            Map.entry("utf8mb4", "UTF-8"), Map.entry("utf8mb3", "UTF-8"), Map.entry("utf8", "UTF-8"),
            Map.entry("latin1", LATIN1), Map.entry("ascii", "US-ASCII"), Map.entry("ucs2", "UTF-16BE"),
            Map.entry("utf16", "UTF-16BE"), Map.entry("utf16le", "UTF-16LE"), Map.entry("utf32", "UTF-32BE"),
            Map.entry("latin2", "ISO-8859-2"), Map.entry("latin5", "ISO-8859-9"), Map.entry("latin7", "ISO-8859-13"),
            Map.entry("cp1250", "windows-1250"), Map.entry("cp1251", "windows-1251"),
            Map.entry("cp1257", "windows-1257"), Map.entry("cp850", "IBM850"), Map.entry("cp852", "IBM852"),
            Map.entry("koi8r", "KOI8-R"), Map.entry("cp932", "windows-31j"), Map.entry("gb2312", "GB2312"),
            Map.entry("gb18030", GB18030), Map.entry("euckr", EUCKR), Map.entry("macroman", "x-MacRoman"),
            Map.entry("macce", "x-MacCentralEurope"));

    private static final char[] LATIN1_CHARS = latin1Chars();

    private MySqlCharsets() {}

    private static char[] latin1Chars() {
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        char[] chars = new String(all, Charset.forName(LATIN1)).toCharArray();
        for (int i = 0; i < 256; i++) {
            if (chars[i] == '\uFFFD') {
                chars[i] = (char) i; // 0x81, 0x8D, 0x8F, 0x90, 0x9D: the C1 controls, as the server converts them
            }
        }
        return chars;
    }

    private static boolean hasPrivateUse(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= '\uE000' && c <= '\uF8FF') {
                return true;
            }
        }
        return false;
    }

    /** An ENUM or SET label from its bytes in the Java charset {@code javaCharset}: labels are valid text. */
    static String decodeLabel(String javaCharset, byte[] bytes) {
        if (LATIN1.equals(javaCharset)) {
            return latin1(bytes);
        }
        String text = new String(bytes, Charset.forName(javaCharset));
        return GB18030.equals(javaCharset) ? MySqlGb18030.toServers(text) : text;
    }

    /** Every byte is a latin1 character: the decoding cannot fail. */
    private static String latin1(byte[] bytes) {
        char[] chars = new char[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            chars[i] = LATIN1_CHARS[bytes[i] & 0xff];
        }
        return new String(chars);
    }

    /** The MySQL character sets this source decodes as text. */
    public static java.util.Set<String> supported() {
        return JAVA_NAMES.keySet();
    }

    /**
     * The Java charset name of a MySQL character set, {@link #BINARY} for binary, null when Java has
     * no exact equivalent (see {@link #JAVA_NAMES}).
     */
    @Nullable
    public static String javaName(String mysqlCharset) {
        String name = mysqlCharset.toLowerCase(Locale.ROOT);
        return BINARY.equals(name) ? BINARY : JAVA_NAMES.get(name);
    }

    /**
     * Decodes {@code bytes} in the column's character set, failing on bytes that are not valid in it.
     * The lenient decode is the fast one; only text holding a replacement character (which valid
     * bytes may hold too) is decoded again strictly, to tell the two apart.
     */
    public static String decode(MySqlColumn column, byte[] bytes) {
        if (LATIN1.equals(column.charset())) {
            return latin1(bytes);
        }
        Charset charset = column.javaCharset();
        String text = new String(bytes, charset);
        if (text.indexOf('\uFFFD') >= 0) {
            try {
                text = charset.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException e) {
                throw column.decodeFailure("the bytes are not valid " + column.charset());
            }
        }
        if (EUCKR.equals(column.charset()) && hasPrivateUse(text)) {
            // the server has no character for these (it writes '?'); Java maps them to private use
            throw column.decodeFailure("the bytes are not a defined " + column.charset() + " character");
        }
        return GB18030.equals(column.charset()) ? MySqlGb18030.toServers(text) : text;
    }
}
