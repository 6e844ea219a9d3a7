package io.rustcdc.flink.mysql.types;

import io.rustcdc.flink.mysql.types.MySqlColumn.Family;
import io.rustcdc.flink.source.CdcException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * Columns from the catalogue: {@code information_schema.COLUMNS.COLUMN_TYPE} (e.g. {@code int(10)
 * unsigned}, {@code enum('a','b')}, {@code datetime(3)}) and {@code CHARACTER_SET_NAME}. A type
 * that cannot decode exactly fails here, naming the table, column and type.
 */
@Internal
public final class CatalogTypes {
    private CatalogTypes() {}

    /** A column of an Oracle MySQL server; see {@link #column(String, String, String, String, boolean)}. */
    public static MySqlColumn column(String table, String name, String columnType, @Nullable String charsetName) {
        return column(table, name, columnType, charsetName, false);
    }

    /** @param mariaDb whether the server is MariaDB, whose VECTOR (11.7+) is another type than Oracle MySQL's */
    public static MySqlColumn column(String table, String name, String columnType, @Nullable String charsetName,
            boolean mariaDb) {
        String type = columnType.toLowerCase(Locale.ROOT).trim();
        boolean unsigned = type.contains(" unsigned");
        int open = type.indexOf('(');
        int space = type.indexOf(' ');
        String base = type.substring(0, open >= 0 ? open : space >= 0 ? space : type.length());
        String args = open >= 0 ? columnType.substring(open + 1, columnType.lastIndexOf(')')) : "";
        String charset = charsetName == null ? null : MySqlCharsets.javaName(charsetName);
        if (charsetName != null && charset == null) {
            throw unsupported(table, name, columnType, "its character set " + charsetName + " " + MySqlCharsets.NOT_EXACT);
        }
        switch (base) {
            case "tinyint":
                return of(table, name, columnType, Family.INTEGER, unsigned, 1);
            case "smallint":
                return of(table, name, columnType, Family.INTEGER, unsigned, 2);
            case "mediumint":
                return of(table, name, columnType, Family.INTEGER, unsigned, 3);
            case "int":
            case "integer":
                return of(table, name, columnType, Family.INTEGER, unsigned, 4);
            case "bigint":
                return of(table, name, columnType, Family.BIGINT, unsigned, 8);
            case "decimal":
            case "numeric":
                return of(table, name, columnType, Family.DECIMAL, unsigned, 0);
            case "float":
                return of(table, name, columnType, Family.FLOAT, unsigned, 0);
            case "double":
            case "real":
                return of(table, name, columnType, Family.DOUBLE, unsigned, 0);
            case "bit": {
                int bits = args.isEmpty() ? 1 : Integer.parseInt(args.trim());
                return of(table, name, columnType, bits == 1 ? Family.BOOLEAN_BIT : Family.BITS, false, bits);
            }
            case "year":
                return of(table, name, columnType, Family.YEAR, false, 0);
            case "char":
                return charset == null || MySqlCharsets.BINARY.equals(charset)
                        ? of(table, name, columnType, Family.BINARY, false, Integer.parseInt(args.trim()))
                        : text(table, name, columnType, Family.CHAR, List.of(), charset);
            case "binary":
                return of(table, name, columnType, Family.BINARY, false, args.isEmpty() ? 1 : Integer.parseInt(args.trim()));
            case "varchar":
            case "tinytext":
            case "text":
            case "mediumtext":
            case "longtext":
                return charset == null || MySqlCharsets.BINARY.equals(charset)
                        ? of(table, name, columnType, Family.BLOB, false, 0)
                        : text(table, name, columnType, Family.TEXT, List.of(), charset);
            case "varbinary":
            case "tinyblob":
            case "blob":
            case "mediumblob":
            case "longblob":
                return of(table, name, columnType, Family.BLOB, false, 0);
            case "json":
                return text(table, name, columnType, Family.JSON, List.of(), "UTF-8");
            case "enum":
                return text(table, name, columnType, Family.ENUM, labels(args), charset);
            case "set":
                return text(table, name, columnType, Family.SET, labels(args), charset);
            case "geometry":
            case "point":
            case "linestring":
            case "polygon":
            case "multipoint":
            case "multilinestring":
            case "multipolygon":
            case "geometrycollection":
                return of(table, name, columnType, Family.GEOMETRY, false, 0);
            case "date":
                return of(table, name, columnType, Family.DATE, false, 0);
            case "time":
                return of(table, name, columnType, Family.TIME, false, digits(args));
            case "datetime":
                return of(table, name, columnType, Family.DATETIME, false, digits(args));
            case "timestamp":
                return of(table, name, columnType, Family.TIMESTAMP, false, digits(args));
            case "uuid":
                return of(table, name, columnType, Family.UUID, false, 16);
            case "inet4":
                return of(table, name, columnType, Family.INET4, false, 4);
            case "inet6":
                return of(table, name, columnType, Family.INET6, false, 16);
            case "vector": // Oracle MySQL 9: COLUMN_TYPE always shows the dimension (vector(2048) by default)
                if (mariaDb) {
                    throw unsupported(table, name, columnType, "MariaDB's VECTOR (11.7+) is not read yet: its binlog "
                            + "and query forms are untested here (the build's MariaDB is 11.4); capture it as VARBINARY "
                            + "or exclude the table");
                }
                return of(table, name, columnType, Family.VECTOR, false,
                        MySqlVectors.bound(Long.parseLong(args.trim())));
            default:
                throw unsupported(table, name, columnType, "rustcdc has no exact decoding for it");
        }
    }

    static CdcException unsupported(String table, String name, String type, String why) {
        return new CdcException(CdcException.Kind.DECODE, "Column " + table + "." + name + " has type " + type
                + ", which cannot be captured: " + why + ". Exclude the table or change the column's type.");
    }

    private static MySqlColumn of(String table, String name, String type, Family family, boolean unsigned, int size) {
        return new MySqlColumn(table, name, type, family, unsigned, size, List.of(), null);
    }

    private static MySqlColumn text(String table, String name, String type, Family family, List<String> labels,
            @Nullable String charset) {
        return new MySqlColumn(table, name, type, family, false, 0, labels, charset);
    }

    private static int digits(String args) {
        return args.isEmpty() ? 0 : Integer.parseInt(args.trim());
    }

    /** The labels of {@code 'a','b''c'}: quoted, a doubled quote standing for one. */
    static List<String> labels(String args) {
        List<String> labels = new ArrayList<>();
        StringBuilder label = null;
        for (int i = 0; i < args.length(); i++) {
            char c = args.charAt(i);
            if (label == null) {
                if (c == '\'') {
                    label = new StringBuilder();
                }
            } else if (c == '\'' && i + 1 < args.length() && args.charAt(i + 1) == '\'') {
                label.append('\'');
                i++;
            } else if (c == '\'') {
                labels.add(label.toString());
                label = null;
            } else {
                label.append(c);
            }
        }
        return labels;
    }
}
