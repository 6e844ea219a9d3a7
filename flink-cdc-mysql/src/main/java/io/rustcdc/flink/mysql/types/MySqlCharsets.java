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

    private static final Map<String, String> JAVA_NAMES = Map.ofEntries(
            Map.entry("utf8mb4", "UTF-8"), Map.entry("utf8mb3", "UTF-8"), Map.entry("utf8", "UTF-8"),
            Map.entry("latin1", "windows-1252"), Map.entry("ascii", "US-ASCII"), Map.entry("ucs2", "UTF-16BE"),
            Map.entry("utf16", "UTF-16BE"), Map.entry("utf16le", "UTF-16LE"), Map.entry("utf32", "UTF-32BE"),
            Map.entry("latin2", "ISO-8859-2"), Map.entry("latin5", "ISO-8859-9"), Map.entry("latin7", "ISO-8859-13"),
            Map.entry("greek", "ISO-8859-7"), Map.entry("hebrew", "ISO-8859-8"), Map.entry("cp1250", "windows-1250"),
            Map.entry("cp1251", "windows-1251"), Map.entry("cp1256", "windows-1256"), Map.entry("cp1257", "windows-1257"),
            Map.entry("cp850", "IBM850"), Map.entry("cp852", "IBM852"), Map.entry("cp866", "IBM866"),
            Map.entry("koi8r", "KOI8-R"), Map.entry("koi8u", "KOI8-U"), Map.entry("sjis", "Shift_JIS"),
            Map.entry("cp932", "windows-31j"), Map.entry("ujis", "EUC-JP"), Map.entry("eucjpms", "x-eucJP-Open"),
            Map.entry("gbk", "GBK"), Map.entry("gb2312", "GB2312"), Map.entry("gb18030", "GB18030"),
            Map.entry("big5", "Big5"), Map.entry("euckr", "EUC-KR"), Map.entry("tis620", "TIS-620"),
            Map.entry("macroman", "x-MacRoman"), Map.entry("macce", "x-MacCentralEurope"));

    private MySqlCharsets() {}

    /**
     * The Java charset name of a MySQL character set, {@link #BINARY} for binary, null when Java has
     * no exact equivalent (armscii8, dec8, hp8, keybcs2, swe7, geostd8).
     */
    @Nullable
    public static String javaName(String mysqlCharset) {
        String name = mysqlCharset.toLowerCase(Locale.ROOT);
        return BINARY.equals(name) ? BINARY : JAVA_NAMES.get(name);
    }

    /** Decodes {@code bytes} in the column's character set, failing on bytes that are not valid in it. */
    public static String decode(MySqlColumn column, byte[] bytes) {
        try {
            return Charset.forName(column.charset()).newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw column.decodeFailure("the bytes are not valid " + column.charset());
        }
    }
}
