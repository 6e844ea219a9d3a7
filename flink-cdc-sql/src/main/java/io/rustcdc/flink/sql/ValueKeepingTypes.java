package io.rustcdc.flink.sql;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a column's type change at the source keeps every value the column holds, as the type texts say
 * (PostgreSQL's {@code format_type}, MySQL's {@code COLUMN_TYPE}): only widenings known to convert no value (a longer
 * {@code varchar}, a {@code numeric} with as many digits on both sides of the point or more, a wider integer, a
 * finer time precision, MySQL enum values added at the end). Any other change may have rewritten the stored values
 * without a row change in the log (rounded, truncated, padded, converted), which a changelog cannot show. A change
 * that widens the type but rewrites the values itself (PostgreSQL's {@code USING}) is not seen.
 */
final class ValueKeepingTypes {
    private static final Pattern SIZED = Pattern.compile(
            "([a-z ]+?)(?:\\((\\d+)(?:,\\s*(\\d+))?\\))?((?: with time zone| without time zone| unsigned| zerofill)*)");
    private static final List<String> PG_INTEGERS = List.of("smallint", "integer", "bigint");
    private static final List<String> MYSQL_INTEGERS = List.of("tinyint", "smallint", "mediumint", "int", "bigint");
    private static final List<String> MYSQL_TEXTS = List.of("tinytext", "text", "mediumtext", "longtext");
    private static final List<String> MYSQL_BLOBS = List.of("tinyblob", "blob", "mediumblob", "longblob");

    private ValueKeepingTypes() {}

    static boolean postgres(String before, String after) {
        if (before.equals(after)) {
            return true;
        }
        Type b = Type.of(before);
        Type a = Type.of(after);
        if (b == null || a == null || b.text.equals(a.text)) {
            return b != null && a != null;
        }
        if (PG_INTEGERS.contains(b.name)) {
            return PG_INTEGERS.indexOf(a.name) >= PG_INTEGERS.indexOf(b.name) || a.name.equals("numeric") && a.size < 0;
        }
        switch (b.name) {
            case "character varying":
                return a.name.equals("text") || a.name.equals(b.name) && (a.size < 0 || b.size >= 0 && a.size >= b.size);
            case "numeric":
                return a.name.equals("numeric") && (a.size < 0 || b.size >= 0 && digits(b, a));
            case "timestamp":
            case "time":
                return a.name.equals(b.name) && a.suffix.equals(b.suffix) && precision(a, 6) >= precision(b, 6);
            default:
                return false;
        }
    }

    static boolean mysql(String before, String after) {
        String bt = mysqlName(before);
        String at = mysqlName(after);
        if (bt.equals(at)) {
            return true;
        }
        if (bt.startsWith("enum(") || bt.startsWith("set(")) {
            return at.equals(bt) || at.startsWith(bt.substring(0, bt.length() - 1) + ",") && at.endsWith(")");
        }
        Type b = Type.of(bt);
        Type a = Type.of(at);
        if (b == null || a == null || b.text.equals(a.text)) {
            return b != null && a != null;
        }
        boolean unsignedBefore = b.suffix.contains("unsigned");
        boolean unsignedAfter = a.suffix.contains("unsigned");
        if (b.suffix.contains("zerofill") || a.suffix.contains("zerofill")) {
            return false; // the digits shown change with the width
        }
        if (MYSQL_INTEGERS.contains(b.name) && MYSQL_INTEGERS.contains(a.name)) {
            int wider = MYSQL_INTEGERS.indexOf(a.name) - MYSQL_INTEGERS.indexOf(b.name);
            boolean oneBit = b.name.equals("tinyint") && b.size == 1 || a.name.equals("tinyint") && a.size == 1;
            return !oneBit && (unsignedBefore == unsignedAfter ? wider >= 0 : unsignedBefore && wider > 0);
        }
        switch (b.name) {
            case "varchar":
            case "varbinary":
            case "char":
                return a.name.equals(b.name) && a.size >= b.size
                        || b.name.equals("varchar") && (a.name.equals("mediumtext") || a.name.equals("longtext"));
            case "decimal":
                return a.name.equals("decimal") && (!unsignedAfter || unsignedBefore) && digits(b, a);
            case "datetime":
            case "timestamp":
            case "time":
                return a.name.equals(b.name) && precision(a, 0) >= precision(b, 0);
            default:
                return widerOf(MYSQL_TEXTS, b, a) || widerOf(MYSQL_BLOBS, b, a);
        }
    }

    /** A MySQL type text in the catalogue's words, as a statement may write it otherwise. */
    private static String mysqlName(String type) {
        return type.toLowerCase(Locale.ROOT).trim().replaceAll(" signed\\b", "").replaceFirst("^integer\\b", "int")
                .replaceFirst("^(dec|numeric|fixed)\\b", "decimal").replaceFirst("^decimal$", "decimal(10,0)")
                .replaceFirst("^decimal\\((\\d+)\\)", "decimal($1,0)");
    }

    private static boolean widerOf(List<String> family, Type b, Type a) {
        return family.contains(b.name) && family.indexOf(a.name) >= family.indexOf(b.name);
    }

    /** At least as many digits before the point and after it. */
    private static boolean digits(Type b, Type a) {
        int bs = Math.max(b.scale, 0);
        int as = Math.max(a.scale, 0);
        return as >= bs && a.size - as >= b.size - bs;
    }

    /** A time type's fractional digits, {@code otherwise} where the text gives none (PostgreSQL 6, MySQL 0). */
    private static int precision(Type t, int otherwise) {
        return t.size < 0 ? otherwise : t.size;
    }

    /** A type text as a name, a size and scale (-1 when absent) and what follows them. */
    private static final class Type {
        final String text;
        final String name;
        final int size;
        final int scale;
        final String suffix;

        private Type(String text, String name, int size, int scale, String suffix) {
            this.text = text;
            this.name = name;
            this.size = size;
            this.scale = scale;
            this.suffix = suffix;
        }

        static Type of(String text) {
            String t = text.toLowerCase(Locale.ROOT).trim();
            Matcher m = SIZED.matcher(t);
            if (!m.matches()) {
                return null;
            }
            return new Type(t, m.group(1).trim(), m.group(2) == null ? -1 : Integer.parseInt(m.group(2)),
                    m.group(3) == null ? -1 : Integer.parseInt(m.group(3)), m.group(4).trim());
        }
    }
}
