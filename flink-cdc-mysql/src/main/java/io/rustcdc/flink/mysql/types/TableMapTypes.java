package io.rustcdc.flink.mysql.types;

import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventMetadata;
import io.rustcdc.flink.mysql.ServerFlavor;
import io.rustcdc.flink.mysql.binlog.RawTableMaps;
import io.rustcdc.flink.mysql.types.MySqlColumn.Family;
import io.rustcdc.flink.source.CdcException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * Columns from a binlog table map and its optional metadata ({@code binlog_row_metadata=FULL}):
 * names, signedness, character sets and ENUM/SET labels, so a row decodes by the table as it was
 * when the row was written, whatever the catalogue says now.
 */
@Internal
public final class TableMapTypes {
    private TableMapTypes() {}

    /**
     * @param charsets Java charset names by collation id ({@link MySqlCharsets#BINARY} for 63)
     * @param flavor the server that wrote the table map: they count different columns as character
     *     columns in the character set metadata (see {@link #isCharacter})
     */
    public static List<MySqlColumn> columns(TableMapEventData map, Map<Integer, String> charsets,
            ServerFlavor flavor) {
        String table = map.getDatabase() + "." + map.getTable();
        TableMapEventMetadata meta = map.getEventMetadata();
        if (meta == null || meta.getColumnNames() == null) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "The binlog's table map of " + table + " has no "
                    + "column names: the server wrote it without binlog_row_metadata=FULL. Run SET GLOBAL "
                    + "binlog_row_metadata = 'FULL' (and in the server's configuration file); events written before "
                    + "cannot be decoded.");
        }
        int n = map.getColumnTypes().length;
        int[] realTypes = new int[n];
        int[] lengths = new int[n];
        List<Integer> characterColumns = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            realType(map.getColumnTypes()[i] & 0xff, map.getColumnMetadata()[i], realTypes, lengths, i);
            if (isCharacter(realTypes[i], flavor)) {
                characterColumns.add(i);
            }
        }
        Integer[] collations = collations(table, meta, characterColumns, n);
        List<MySqlColumn> columns = new ArrayList<>(n);
        int enums = 0;
        int sets = 0;
        int enumsAndSets = 0;
        int vectors = 0;
        for (int i = 0; i < n; i++) {
            String name = meta.getColumnNames().get(i);
            boolean unsigned = meta.getSignedness() != null && meta.getSignedness().get(i);
            String charset = collations[i] == null ? null : charsets.get(collations[i]);
            if (collations[i] != null && charset == null) {
                throw CatalogTypes.unsupported(table, name, "collation " + collations[i], "its character set "
                        + MySqlCharsets.NOT_EXACT);
            }
            List<String> labels = List.of();
            if (realTypes[i] == ENUM || realTypes[i] == SET) {
                String[] raw = realTypes[i] == ENUM ? meta.getEnumStrValues().get(enums++) : meta.getSetStrValues().get(sets++);
                labels = labels(table, name, raw, enumOrSetCollation(meta, enumsAndSets++), charsets);
            }
            if (realTypes[i] == VECTOR) {
                columns.add(vector(table, name, meta, vectors++));
                continue;
            }
            columns.add(column(table, name, realTypes[i], map.getColumnMetadata()[i], lengths[i], unsigned, labels, charset));
        }
        return columns;
    }

    /**
     * A VECTOR column, its declared dimension from the table map's VECTOR_DIMENSIONALITY (one entry
     * per VECTOR column, in order): a table map without it is refused rather than read unbounded.
     */
    private static MySqlColumn vector(String table, String name, TableMapEventMetadata meta, int k) {
        List<Integer> dimensions = meta.getVectorDimensionality();
        if (dimensions == null || k >= dimensions.size()) {
            throw new CdcException(CdcException.Kind.DECODE, "The binlog's table map of " + table + " does not give "
                    + "the dimension of its VECTOR column " + name + " (its VECTOR_DIMENSIONALITY metadata); check "
                    + "binlog_row_metadata = FULL. Exclude the table and report its CREATE TABLE and server version.");
        }
        int dimension = MySqlVectors.bound(Integer.toUnsignedLong(dimensions.get(k)));
        return new MySqlColumn(table, name, "VECTOR(" + Integer.toUnsignedString(dimensions.get(k)) + ")",
                Family.VECTOR, false, dimension, List.of(), null);
    }

    /** ENUM or SET labels in their column's character set, from the bytes the table map holds. */
    private static List<String> labels(String table, String name, String[] raw, @Nullable Integer collation,
            Map<Integer, String> charsets) {
        String charset = collation == null ? null : charsets.get(collation);
        if (charset == null) {
            throw CatalogTypes.unsupported(table, name, "ENUM/SET with labels in collation " + collation,
                    "the character set of its labels " + MySqlCharsets.NOT_EXACT);
        }
        List<String> labels = new ArrayList<>(raw.length);
        for (String label : raw) {
            labels.add(MySqlCharsets.decodeLabel(charset, RawTableMaps.labelBytes(label)));
        }
        return labels;
    }

    /** The collation of the {@code k}-th ENUM or SET column: listed per column, or a default with exceptions. */
    @Nullable
    private static Integer enumOrSetCollation(TableMapEventMetadata meta, int k) {
        List<Integer> perColumn = meta.getEnumAndSetColumnCharsets();
        if (perColumn != null && k < perColumn.size()) {
            return perColumn.get(k);
        }
        TableMapEventMetadata.DefaultCharset defaults = meta.getEnumAndSetDefaultCharset();
        if (defaults == null) {
            return null;
        }
        Integer own = defaults.getCharsetCollations() == null ? null : defaults.getCharsetCollations().get(k);
        return own != null ? own : defaults.getDefaultCharsetCollation();
    }

    private static final int DECIMAL = 0, TINY = 1, SHORT = 2, LONG = 3, FLOAT = 4, DOUBLE = 5, TIMESTAMP = 7,
            LONGLONG = 8, INT24 = 9, DATE = 10, TIME = 11, DATETIME = 12, YEAR = 13, NEWDATE = 14, VARCHAR = 15,
            BIT = 16, TIMESTAMP2 = 17, DATETIME2 = 18, TIME2 = 19, JSON = 245, NEWDECIMAL = 246, ENUM = 247, SET = 248,
            TINY_BLOB = 249, MEDIUM_BLOB = 250, LONG_BLOB = 251, BLOB = 252, VAR_STRING = 253, STRING = 254,
            GEOMETRY = 255, VECTOR = 242;

    /** A STRING column's real type (CHAR, ENUM or SET) and length hide in its metadata. */
    private static void realType(int type, int meta, int[] realTypes, int[] lengths, int i) {
        realTypes[i] = type;
        if (type == STRING && meta >= 256) {
            int real = meta >> 8;
            if ((real & 0x30) != 0x30) {
                lengths[i] = (((meta >> 4) & 0x300) ^ 0x300) + (meta & 0xff);
            } else {
                realTypes[i] = real;
                lengths[i] = meta & 0xff;
            }
        } else if (type == STRING) {
            lengths[i] = meta;
        }
    }

    /**
     * Whether the table map's DEFAULT_CHARSET / COLUMN_CHARSET metadata lists the column (the server's
     * {@code is_character_type} of the column's real type, so ENUM and SET are not): CHAR, VARCHAR
     * and the BLOB/TEXT types on both servers; GEOMETRY on MariaDB only (its base class is the blob,
     * with the binary collation); VECTOR on Oracle MySQL 9 only. A JSON column is not listed on
     * Oracle MySQL, where it has a binlog type of its own; on MariaDB it is a LONGTEXT (a BLOB).
     */
    private static boolean isCharacter(int type, ServerFlavor flavor) {
        if (type == GEOMETRY) {
            return flavor == ServerFlavor.MARIADB;
        }
        if (type == VECTOR) {
            return flavor == ServerFlavor.MYSQL;
        }
        return type == STRING || type == VARCHAR || type == VAR_STRING || type == BLOB || type == TINY_BLOB
                || type == MEDIUM_BLOB || type == LONG_BLOB;
    }

    /** Each character column's collation id, from the per-column list or the default with exceptions. */
    private static Integer[] collations(String table, TableMapEventMetadata meta, List<Integer> characterColumns, int n) {
        Integer[] collations = new Integer[n];
        if (characterColumns.isEmpty()) {
            return collations;
        }
        List<Integer> perColumn = meta.getColumnCharsets();
        TableMapEventMetadata.DefaultCharset defaults = meta.getDefaultCharset();
        if (perColumn != null) {
            if (perColumn.size() != characterColumns.size()) {
                throw new CdcException(CdcException.Kind.DECODE, "The binlog's table map of " + table + " gives "
                        + perColumn.size() + " column character sets where this source counts "
                        + characterColumns.size() + " character columns; its text cannot be told from bytes. "
                        + "Exclude the table and report its CREATE TABLE and server version.");
            }
            for (int k = 0; k < characterColumns.size(); k++) {
                collations[characterColumns.get(k)] = perColumn.get(k);
            }
        } else if (defaults != null) {
            Map<Integer, Integer> exceptions = defaults.getCharsetCollations();
            for (int k = 0; k < characterColumns.size(); k++) {
                Integer own = exceptions == null ? null : exceptions.get(k);
                collations[characterColumns.get(k)] = own != null ? own : defaults.getDefaultCharsetCollation();
            }
        } else {
            throw new CdcException(CdcException.Kind.DECODE, "The binlog's table map of " + table + " does not give "
                    + "the character sets of its " + characterColumns.size() + " character columns; its text cannot "
                    + "be told from bytes. Check binlog_row_metadata = FULL.");
        }
        return collations;
    }

    private static MySqlColumn column(String table, String name, int type, int meta, int length, boolean unsigned,
            List<String> labels, @Nullable String charset) {
        boolean binary = charset == null || MySqlCharsets.BINARY.equals(charset);
        String textCharset = binary ? null : charset;
        switch (type) {
            case TINY:
                return of(table, name, "TINYINT", Family.INTEGER, unsigned, 1);
            case SHORT:
                return of(table, name, "SMALLINT", Family.INTEGER, unsigned, 2);
            case INT24:
                return of(table, name, "MEDIUMINT", Family.INTEGER, unsigned, 3);
            case LONG:
                return of(table, name, "INT", Family.INTEGER, unsigned, 4);
            case LONGLONG:
                return of(table, name, "BIGINT", Family.BIGINT, unsigned, 8);
            case NEWDECIMAL:
                return of(table, name, "DECIMAL", Family.DECIMAL, unsigned, 0);
            case FLOAT:
                return of(table, name, "FLOAT", Family.FLOAT, unsigned, 0);
            case DOUBLE:
                return of(table, name, "DOUBLE", Family.DOUBLE, unsigned, 0);
            case BIT: {
                int bits = (meta >> 8) * 8 + (meta & 0xff);
                return of(table, name, "BIT(" + bits + ")", bits == 1 ? Family.BOOLEAN_BIT : Family.BITS, false, bits);
            }
            case YEAR:
                return of(table, name, "YEAR", Family.YEAR, false, 0);
            case DATE:
            case NEWDATE:
                return of(table, name, "DATE", Family.DATE, false, 0);
            case TIME2:
                return of(table, name, "TIME(" + meta + ")", Family.TIME, false, meta);
            case DATETIME2:
                return of(table, name, "DATETIME(" + meta + ")", Family.DATETIME, false, meta);
            case TIMESTAMP2:
                return of(table, name, "TIMESTAMP(" + meta + ")", Family.TIMESTAMP, false, meta);
            case TIME:
            case DATETIME:
            case TIMESTAMP:
                if (meta != 0) {
                    throw CatalogTypes.unsupported(table, name, "a pre-5.6 temporal type with fractional seconds",
                            "its binlog format is not decoded; ALTER the column (or set mysql56_temporal_format=ON "
                                    + "on MariaDB and rebuild the table)");
                }
                Family family = type == TIME ? Family.TIME : type == DATETIME ? Family.DATETIME : Family.TIMESTAMP;
                return of(table, name, family.name(), family, false, 0);
            case STRING:
                return binary ? of(table, name, "BINARY(" + length + ")", Family.BINARY, false, length)
                        : text(table, name, "CHAR", Family.CHAR, labels, textCharset);
            case VARCHAR:
            case VAR_STRING:
            case BLOB:
            case TINY_BLOB:
            case MEDIUM_BLOB:
            case LONG_BLOB:
                return binary ? of(table, name, "BLOB", Family.BLOB, false, 0)
                        : text(table, name, "TEXT", Family.TEXT, labels, textCharset);
            case JSON:
                return text(table, name, "JSON", Family.JSON, labels, "UTF-8");
            case ENUM:
                return text(table, name, "ENUM", Family.ENUM, labels, null);
            case SET:
                return text(table, name, "SET", Family.SET, labels, null);
            case GEOMETRY:
                return of(table, name, "GEOMETRY", Family.GEOMETRY, false, 0);
            default:
                throw CatalogTypes.unsupported(table, name, "binlog type " + type, "rustcdc has no exact decoding for it");
        }
    }

    private static MySqlColumn of(String table, String name, String type, Family family, boolean unsigned, int size) {
        return new MySqlColumn(table, name, type, family, unsigned, size, List.of(), null);
    }

    private static MySqlColumn text(String table, String name, String type, Family family, List<String> labels,
            @Nullable String charset) {
        return new MySqlColumn(table, name, type, family, false, 0, labels, charset);
    }
}
