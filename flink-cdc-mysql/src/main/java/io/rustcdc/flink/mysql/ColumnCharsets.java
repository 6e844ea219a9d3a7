package io.rustcdc.flink.mysql;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * A text column's character set in its shape's type: the catalogue's {@code COLUMN_TYPE} followed by
 * {@code character set <CHARACTER_SET_NAME>} unless the set is utf8mb4 ({@code varchar(50) character set
 * latin1}, {@code varchar(50)}), so a conversion of the column is a type change of its shape. Binary and
 * blob columns have no set, nor a suffix. The collation is left out: a change of collation within a set
 * keeps the stored bytes and so the text. Public for the SQL module ({@link #keepsText}).
 */
@Internal
public final class ColumnCharsets {
    static final String SUFFIX = " character set ";
    private static final String IMPLICIT = "utf8mb4";
    /** Sets that hold every Unicode character. */
    private static final Set<String> UNICODE = Set.of("utf8mb4", "utf16", "utf16le", "utf32");
    /** Sets that hold the Basic Multilingual Plane. */
    private static final Set<String> BMP = Set.of("utf8mb3", "ucs2");
    /** Sets each of whose characters is in the BMP (latin1 is MySQL's cp1252, five bytes as C1 controls). */
    private static final Set<String> SINGLE_BYTE = Set.of("ascii", "latin1");
    private static final List<String> TEXTS = List.of("tinytext", "text", "mediumtext", "longtext");

    private ColumnCharsets() {}

    /** The shape's type of a column of catalogue type {@code columnType} in {@code charset} (null: none). */
    static String shapeType(String columnType, @Nullable String charset) {
        if (charset == null || charset.equalsIgnoreCase(IMPLICIT)) {
            return columnType;
        }
        return columnType + SUFFIX + charset.toLowerCase(Locale.ROOT);
    }

    /**
     * Whether a column's change from shape type {@code before} to {@code after} keeps the text of every value
     * its set can hold: the same set, or one that holds each of the old set's characters (ascii to latin1;
     * ascii, latin1, utf8mb3, ucs2 to utf8mb3 or ucs2; any set to utf8mb4, utf16, utf16le, utf32, which hold
     * every character the server maps a set's bytes to).
     * Any other conversion may replace characters with {@code ?} (under a non-strict {@code sql_mode}) and
     * rewrites the stored values without row events. True where either type has no set (the types decide).
     */
    public static boolean keepsText(String before, String after) {
        String b = charset(before);
        String a = charset(after);
        if (b == null || a == null || same(a, b)) {
            return true;
        }
        b = canonical(b);
        a = canonical(a);
        boolean fromBmp = BMP.contains(b) || SINGLE_BYTE.contains(b);
        return UNICODE.contains(a) || BMP.contains(a) && fromBmp
                || a.equals("latin1") && b.equals("ascii");
    }

    /** A shape's type without its character set: the catalogue's {@code COLUMN_TYPE}. */
    public static String baseType(String shapeType) {
        int at = shapeType.lastIndexOf(SUFFIX);
        return at < 0 || shapeType.endsWith("'") || shapeType.endsWith(")") ? shapeType : shapeType.substring(0, at);
    }

    /** A shape's character set: its suffix's, else utf8mb4 for a text type, else null (binary, numbers, ...). */
    @Nullable
    static String charset(String shapeType) {
        String base = baseType(shapeType);
        if (base.length() < shapeType.length()) {
            return shapeType.substring(base.length() + SUFFIX.length());
        }
        return textual(base) ? IMPLICIT : null;
    }

    /** Whether a catalogue type holds text in a character set (CHAR, VARCHAR, the TEXT types, ENUM, SET). */
    static boolean textual(String columnType) {
        String t = columnType.toLowerCase(Locale.ROOT);
        return t.startsWith("char") || t.startsWith("varchar") || t.matches("(tiny|medium|long)?text")
                || t.startsWith("enum(") || t.startsWith("set(");
    }

    /** Whether a column of shape type {@code shown} has the set a definition states ({@code stated}; null: any). */
    static boolean fits(@Nullable String stated, String shown) {
        String set = charset(shown);
        return stated == null || set != null && same(stated, set);
    }

    /**
     * Whether a column of shape type {@code was} that a statement does not define may show as {@code shown}
     * after it: as it was, or, under the statement's {@code CONVERT TO CHARACTER SET convertTo} (null: none), a
     * text column in that set, its type kept or a longer TEXT type (the server makes a TEXT MEDIUMTEXT where the
     * new set needs more bytes a character).
     */
    static boolean leftAs(@Nullable String convertTo, String was, String shown) {
        if (convertTo == null || charset(was) == null) {
            return was.equals(shown);
        }
        String before = baseType(was);
        String after = baseType(shown);
        return fits(convertTo, shown) && (before.equals(after) || TEXTS.indexOf(after) >= 0 && TEXTS.indexOf(before) >= 0
                && TEXTS.indexOf(after) >= TEXTS.indexOf(before));
    }

    /** The set a collation belongs to ({@code latin1_bin}: latin1; {@code binary}: binary). */
    static String ofCollation(String collation) {
        String c = collation.toLowerCase(Locale.ROOT);
        int at = c.indexOf('_');
        return at < 0 ? c : c.substring(0, at);
    }

    /** Whether two set names are one set ({@code utf8} is {@code utf8mb3}, as both servers name it since 2021). */
    static boolean same(String a, String b) {
        return canonical(a).equals(canonical(b));
    }

    private static String canonical(String set) {
        String s = set.toLowerCase(Locale.ROOT);
        return s.equals("utf8") ? "utf8mb3" : s;
    }
}
