package io.rustcdc.flink.source.model;

import java.io.ByteArrayOutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A table's columns (name, declared type in the source's own syntax, nullability) in ordinal
 * order, its primary key, and a content id. A consumer can read a row with the types in its shape
 * alone. A shape names a table layout, not a point in history: a table altered from A to B and
 * back to A has A's id again. Immutable and thread-safe.
 *
 * <p>The id is the lowercase hex SHA-256 of the bytes {@code rustcdc/v2/row-shape} followed by
 * schema, table, the column count, each column's name, declared type and a nullable byte (1 or
 * 0), the key count and each key column; strings as a 4-byte big-endian length and their UTF-8
 * bytes, counts as 4 bytes big-endian.
 *
 * <pre>{@code
 * RowShape shape = RowShape.of("public", "orders",
 *         List.of(RowShape.Column.of("id", "bigint", false), RowShape.Column.of("amount", "numeric(12,4)", false)),
 *         List.of("id"));
 * shape.id(); // b624610f...
 * }</pre>
 */
@PublicEvolving
public final class RowShape implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final byte[] PREFIX = "rustcdc/v2/row-shape".getBytes(StandardCharsets.UTF_8);

    /** The declared type of a column whose type could not be read: never a guess. */
    public static final String UNKNOWN_TYPE = "unknown";

    /** One column of a shape. */
    @PublicEvolving
    public static final class Column implements Serializable {
        private static final long serialVersionUID = 1L;
        private final String name;
        private final String dataType;
        private final boolean nullable;

        private Column(String name, String dataType, boolean nullable) {
            this.name = Objects.requireNonNull(name, "name");
            this.dataType = Objects.requireNonNull(dataType, "dataType");
            this.nullable = nullable;
        }

        public static Column of(String name, String dataType, boolean nullable) {
            return new Column(name, dataType, nullable);
        }

        public String name() {
            return name;
        }

        /** The source's own type syntax with its modifier, e.g. {@code numeric(12,4)}. */
        public String dataType() {
            return dataType;
        }

        public boolean nullable() {
            return nullable;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Column)) {
                return false;
            }
            Column c = (Column) o;
            return name.equals(c.name) && dataType.equals(c.dataType) && nullable == c.nullable;
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, dataType, nullable);
        }

        @Override
        public String toString() {
            return name + " " + dataType + (nullable ? " NULL" : " NOT NULL");
        }
    }

    private final String schema;
    private final String table;
    private final List<Column> columns;
    private final List<String> primaryKey;
    private final String id;

    private RowShape(String schema, String table, List<Column> columns, List<String> primaryKey) {
        this.schema = Objects.requireNonNull(schema, "schema");
        this.table = Objects.requireNonNull(table, "table");
        this.columns = List.copyOf(columns);
        this.primaryKey = List.copyOf(primaryKey);
        Set<String> names = new HashSet<>();
        for (Column c : this.columns) {
            if (!names.add(c.name())) {
                throw new IllegalArgumentException("Column " + c.name() + " appears twice in " + schema + "." + table);
            }
        }
        for (String key : this.primaryKey) {
            if (!names.contains(key)) {
                throw new IllegalArgumentException(
                        "Primary key column " + key + " is not a column of " + schema + "." + table);
            }
        }
        this.id = computeId();
    }

    /**
     * A shape. For a MySQL or MariaDB table, {@code schema} is the database.
     *
     * @throws IllegalArgumentException when a column name repeats or a key column is not a column
     */
    public static RowShape of(String schema, String table, List<Column> columns, List<String> primaryKey) {
        return new RowShape(schema, table, columns, primaryKey);
    }

    public String schema() {
        return schema;
    }

    public String table() {
        return table;
    }

    public List<Column> columns() {
        return columns;
    }

    public List<String> primaryKey() {
        return primaryKey;
    }

    /** The column named {@code name}, if any. */
    public Optional<Column> column(String name) {
        for (Column c : columns) {
            if (c.name().equals(name)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** The lowercase hex SHA-256 content id (see the class comment). */
    public String id() {
        return id;
    }

    /** The same table with only {@code kept} columns, in their original order (a projection). */
    public RowShape project(Set<String> kept) {
        List<Column> cols = new ArrayList<>();
        for (Column c : columns) {
            if (kept.contains(c.name())) {
                cols.add(c);
            }
        }
        List<String> key = new ArrayList<>();
        for (String k : primaryKey) {
            if (kept.contains(k)) {
                key.add(k);
            }
        }
        return new RowShape(schema, table, cols, key);
    }

    private String computeId() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + columns.size() * 32);
        bytes.writeBytes(PREFIX);
        writeString(bytes, schema);
        writeString(bytes, table);
        writeCount(bytes, columns.size());
        for (Column c : columns) {
            writeString(bytes, c.name());
            writeString(bytes, c.dataType());
            bytes.write(c.nullable() ? 1 : 0);
        }
        writeCount(bytes, primaryKey.size());
        for (String k : primaryKey) {
            writeString(bytes, k);
        }
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes.toByteArray()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java runtime", e);
        }
    }

    private static void writeString(ByteArrayOutputStream out, String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        writeCount(out, utf8.length);
        out.writeBytes(utf8);
    }

    private static void writeCount(ByteArrayOutputStream out, int n) {
        out.write(n >>> 24);
        out.write(n >>> 16);
        out.write(n >>> 8);
        out.write(n);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof RowShape)) {
            return false;
        }
        RowShape other = (RowShape) o;
        return id.equals(other.id) && schema.equals(other.schema) && table.equals(other.table)
                && columns.equals(other.columns) && primaryKey.equals(other.primaryKey);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "RowShape{" + schema + "." + table + " " + columns + " key=" + primaryKey + " id=" + id + "}";
    }
}
