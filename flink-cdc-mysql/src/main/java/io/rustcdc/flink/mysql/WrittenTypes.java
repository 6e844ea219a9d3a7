package io.rustcdc.flink.mysql;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a column type as a statement writes it is the type the catalogue shows for it
 * ({@code information_schema.COLUMNS.COLUMN_TYPE}), by the rules the server writes it with and no
 * others: case and spaces, the synonyms ({@code integer}, {@code bool}, {@code numeric}, {@code
 * double precision}, {@code real}), the lengths the server fills in ({@code decimal} is {@code
 * decimal(10,0)}, {@code char} is {@code char(1)}) and integer display widths (added by MariaDB and
 * MySQL 5.7, dropped by MySQL 8). A type written any other way ({@code serial}, MariaDB's {@code
 * json}, which it shows as {@code longtext}) is not the same: the caller cannot tell it from a type
 * changed again since.
 */
final class WrittenTypes {
    private static final Pattern INTEGER =
            Pattern.compile("(tinyint|smallint|mediumint|int|bigint)(?:\\((\\d+)\\))?((?: unsigned)?(?: zerofill)?)");
    /** Display widths the server gives an integer declared without one: signed, unsigned. */
    private static final Map<String, int[]> WIDTHS = Map.of("tinyint", new int[] {4, 3}, "smallint", new int[] {6, 5},
            "mediumint", new int[] {9, 8}, "int", new int[] {11, 10}, "bigint", new int[] {20, 20});

    private WrittenTypes() {}

    /** {@code written} as {@link ColumnDefinition#type} has it, {@code columnType} as the catalogue has it. */
    static boolean same(String written, String columnType) {
        String w = canonical(written);
        String c = ColumnDefinition.normalizedType(MySqlDdl.tokens(columnType));
        if (w.equals(c) || w.equals("year") && c.equals("year(4)")) {
            return true;
        }
        Matcher wi = INTEGER.matcher(w);
        Matcher ci = INTEGER.matcher(c);
        if (!wi.matches() || !ci.matches() || !wi.group(1).equals(ci.group(1)) || !wi.group(3).equals(ci.group(3))) {
            return false;
        }
        if (ci.group(2) == null || ci.group(2).equals(wi.group(2))) {
            return true; // MySQL 8 shows no display width (but tinyint(1)'s, which is then written)
        }
        int byDefault = WIDTHS.get(wi.group(1))[wi.group(3).isEmpty() ? 0 : 1];
        return wi.group(2) == null && Integer.parseInt(ci.group(2)) == byDefault;
    }

    /** The synonyms and filled-in lengths of the server applied to a written type. */
    private static String canonical(String written) {
        String t = written.replaceAll(" signed\\b", "");
        if (t.contains(" zerofill") && !t.contains(" unsigned")) {
            t = t.replace(" zerofill", " unsigned zerofill");
        }
        t = t.replaceFirst("^integer\\b", "int").replaceFirst("^(bool|boolean)$", "tinyint(1)")
                .replaceFirst("^(dec|numeric|fixed)\\b", "decimal").replaceFirst("^(double precision|real)\\b", "double")
                .replaceFirst("^(char|binary|bit)((?= )|$)", "$1(1)").replaceFirst("^decimal((?= )|$)", "decimal(10,0)")
                .replaceFirst("^decimal\\((\\d+)\\)", "decimal($1,0)")
                .replaceFirst("^vector$", "vector(2048)"); // Oracle MySQL 9: VECTOR is VECTOR(2048)
        return t;
    }
}
