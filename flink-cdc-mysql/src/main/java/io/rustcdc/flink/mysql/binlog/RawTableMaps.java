package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventMetadata;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;

/**
 * Table map events read here, byte by byte, rather than by the client's own reader, whose text
 * depends on the JVM's default character set and which has no supported way to replace its
 * reader of the optional metadata. Registered for {@code TABLE_MAP} through the client's {@code
 * EventDeserializer}; the result is the client's {@link TableMapEventData}, which its row
 * readers use, with the column metadata in the client's own conventions.
 *
 * <p>Names (database, table, columns) are UTF-8, the server's system character set. ENUM and SET
 * labels are in their column's character set, which only the caller knows: they are left as one
 * char per byte (ISO-8859-1), for {@link #labelBytes} to give back exactly. Signedness is indexed
 * by column (the binlog lists it per numeric column).
 */
@Internal
public final class RawTableMaps implements EventDataDeserializer<TableMapEventData> {
    // column types (MySQL's enum_field_types) whose table map metadata has a width of its own
    private static final int TINY = 1, SHORT = 2, LONG = 3, FLOAT = 4, DOUBLE = 5, LONGLONG = 8,
            INT24 = 9, VARCHAR = 15, BIT = 16, TIMESTAMP2 = 17, DATETIME2 = 18, TIME2 = 19, VECTOR = 242, JSON = 245,
            NEWDECIMAL = 246, ENUM = 247, SET = 248, TINY_BLOB = 249, MEDIUM_BLOB = 250, LONG_BLOB = 251, BLOB = 252,
            VAR_STRING = 253, STRING = 254, GEOMETRY = 255;

    // optional metadata field types (Table_map_log_event::Optional_metadata_field_type)
    private static final int SIGNEDNESS = 1, DEFAULT_CHARSET = 2, COLUMN_CHARSET = 3, COLUMN_NAME = 4,
            SET_STR_VALUE = 5, ENUM_STR_VALUE = 6, GEOMETRY_TYPE = 7, SIMPLE_PRIMARY_KEY = 8,
            PRIMARY_KEY_WITH_PREFIX = 9, ENUM_AND_SET_DEFAULT_CHARSET = 10, ENUM_AND_SET_COLUMN_CHARSET = 11,
            COLUMN_VISIBILITY = 12, VECTOR_DIMENSIONALITY = 13;

    public RawTableMaps() {}

    @Override
    public TableMapEventData deserialize(ByteArrayInputStream in) throws IOException {
        TableMapEventData map = new TableMapEventData();
        map.setTableId(in.readLong(6));
        in.readInteger(2); // flags
        map.setDatabase(utf8Name(in));
        map.setTable(utf8Name(in));
        int columns = in.readPackedInteger();
        byte[] types = in.read(columns);
        map.setColumnTypes(types);
        int metadataLength = in.readPackedInteger();
        map.setColumnMetadata(columnMetadata(new ByteArrayInputStream(in.read(metadataLength)), types,
                metadataLength, map));
        map.setColumnNullability(in.readBitSet(columns, true));
        int optional = in.available();
        if (optional > 0) {
            map.setEventMetadata(optionalMetadata(new ByteArrayInputStream(in.read(optional)), types));
        }
        return map;
    }

    private static String utf8Name(ByteArrayInputStream in) throws IOException {
        int length = in.readInteger(1);
        String name = new String(in.read(length), StandardCharsets.UTF_8);
        in.read(1); // the terminating zero
        return name;
    }

    /**
     * Each column's metadata as the client's row readers expect it: one byte, two bytes little-endian
     * (BIT: bits | bytes << 8; VARCHAR: the maximum length; NEWDECIMAL: precision | scale << 8), or
     * two bytes big-endian for STRING, ENUM and SET (real type << 8 | length).
     */
    private static int[] columnMetadata(ByteArrayInputStream in, byte[] types, int length, TableMapEventData map)
            throws IOException {
        int[] metadata = new int[types.length];
        int read = 0;
        for (int i = 0; i < types.length; i++) {
            switch (types[i] & 0xff) {
                case FLOAT:
                case DOUBLE:
                case TINY_BLOB:
                case BLOB:
                case MEDIUM_BLOB:
                case LONG_BLOB:
                case JSON:
                case GEOMETRY:
                case VECTOR:
                case TIME2:
                case DATETIME2:
                case TIMESTAMP2:
                    metadata[i] = in.readInteger(1);
                    read += 1;
                    break;
                case BIT:
                case VARCHAR:
                case VAR_STRING:
                case NEWDECIMAL:
                    metadata[i] = in.readInteger(2);
                    read += 2;
                    break;
                case STRING:
                case ENUM:
                case SET:
                    metadata[i] = (in.readInteger(1) << 8) | in.readInteger(1);
                    read += 2;
                    break;
                default:
                    metadata[i] = 0;
            }
        }
        if (read != length) {
            throw new IOException("The table map of " + map.getDatabase() + "." + map.getTable() + " has " + length
                    + " bytes of column metadata where its column types take " + read + "; a column type unknown "
                    + "to this reader?");
        }
        return metadata;
    }

    private static TableMapEventMetadata optionalMetadata(ByteArrayInputStream in, byte[] types) throws IOException {
        TableMapEventMetadata meta = new TableMapEventMetadata();
        while (in.available() > 0) {
            int type = in.readInteger(1);
            int length = in.readPackedInteger();
            ByteArrayInputStream field = new ByteArrayInputStream(in.read(length));
            switch (type) {
                case SIGNEDNESS:
                    meta.setSignedness(signedness(field, types));
                    break;
                case DEFAULT_CHARSET:
                    meta.setDefaultCharset(defaultCharset(field));
                    break;
                case COLUMN_CHARSET:
                    meta.setColumnCharsets(integers(field));
                    break;
                case COLUMN_NAME:
                    meta.setColumnNames(names(field));
                    break;
                case SET_STR_VALUE:
                    meta.setSetStrValues(labels(field));
                    break;
                case ENUM_STR_VALUE:
                    meta.setEnumStrValues(labels(field));
                    break;
                case GEOMETRY_TYPE:
                    meta.setGeometryTypes(integers(field));
                    break;
                case SIMPLE_PRIMARY_KEY:
                    meta.setSimplePrimaryKeys(integers(field));
                    break;
                case PRIMARY_KEY_WITH_PREFIX:
                    meta.setPrimaryKeysWithPrefix(pairs(field));
                    break;
                case ENUM_AND_SET_DEFAULT_CHARSET:
                    meta.setEnumAndSetDefaultCharset(defaultCharset(field));
                    break;
                case ENUM_AND_SET_COLUMN_CHARSET:
                    meta.setEnumAndSetColumnCharsets(integers(field));
                    break;
                case COLUMN_VISIBILITY:
                    meta.setVisibility(bitsMostSignificantFirst(field, types.length));
                    break;
                case VECTOR_DIMENSIONALITY:
                    meta.setVectorDimensionality(integers(field));
                    break;
                default:
                    break; // a field of a newer server: its length is known, so it is passed over
            }
        }
        return meta;
    }

    /** The binlog's bit per numeric column (1 = unsigned), as a set indexed by column. */
    private static BitSet signedness(ByteArrayInputStream field, byte[] types) throws IOException {
        List<Integer> numeric = new ArrayList<>();
        for (int i = 0; i < types.length; i++) {
            if (isNumeric(types[i] & 0xff)) {
                numeric.add(i);
            }
        }
        BitSet perNumeric = bitsMostSignificantFirst(field, numeric.size());
        BitSet byColumn = new BitSet(types.length);
        for (int k = 0; k < numeric.size(); k++) {
            byColumn.set(numeric.get(k), perNumeric.get(k));
        }
        return byColumn;
    }

    private static boolean isNumeric(int type) {
        return type == TINY || type == SHORT || type == INT24 || type == LONG || type == LONGLONG || type == NEWDECIMAL
                || type == FLOAT || type == DOUBLE;
    }

    private static BitSet bitsMostSignificantFirst(ByteArrayInputStream field, int count) throws IOException {
        byte[] bytes = field.read((count + 7) / 8);
        BitSet bits = new BitSet(count);
        for (int i = 0; i < count; i++) {
            if ((bytes[i >> 3] & (0x80 >> (i & 7))) != 0) {
                bits.set(i);
            }
        }
        return bits;
    }

    private static TableMapEventMetadata.DefaultCharset defaultCharset(ByteArrayInputStream field) throws IOException {
        TableMapEventMetadata.DefaultCharset charset = new TableMapEventMetadata.DefaultCharset();
        charset.setDefaultCharsetCollation(field.readPackedInteger());
        Map<Integer, Integer> exceptions = pairs(field);
        charset.setCharsetCollations(exceptions.isEmpty() ? null : exceptions);
        return charset;
    }

    private static List<Integer> integers(ByteArrayInputStream field) throws IOException {
        List<Integer> values = new ArrayList<>();
        while (field.available() > 0) {
            values.add(field.readPackedInteger());
        }
        return values;
    }

    private static Map<Integer, Integer> pairs(ByteArrayInputStream field) throws IOException {
        Map<Integer, Integer> pairs = new LinkedHashMap<>();
        while (field.available() > 0) {
            int key = field.readPackedInteger();
            pairs.put(key, field.readPackedInteger());
        }
        return pairs;
    }

    private static List<String> names(ByteArrayInputStream field) throws IOException {
        List<String> names = new ArrayList<>();
        while (field.available() > 0) {
            names.add(new String(field.read(field.readPackedInteger()), StandardCharsets.UTF_8));
        }
        return names;
    }

    /** Per ENUM or SET column its labels, each as one char per byte (see {@link #labelBytes}). */
    private static List<String[]> labels(ByteArrayInputStream field) throws IOException {
        List<String[]> columns = new ArrayList<>();
        while (field.available() > 0) {
            String[] labels = new String[field.readPackedInteger()];
            for (int k = 0; k < labels.length; k++) {
                labels[k] = new String(field.read(field.readPackedInteger()), StandardCharsets.ISO_8859_1);
            }
            columns.add(labels);
        }
        return columns;
    }

    /** The bytes of an ENUM or SET label as the server wrote them, to decode in the column's character set. */
    public static byte[] labelBytes(String label) {
        return label.getBytes(StandardCharsets.ISO_8859_1);
    }

    static String utf8(String bytesAsChars) {
        return bytesAsChars == null ? null : new String(labelBytes(bytesAsChars), StandardCharsets.UTF_8);
    }
}
