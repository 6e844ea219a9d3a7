package io.rustcdc.flink.mysql.types;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * How one MySQL/MariaDB column's values decode: its family, the details its values need (width and
 * signedness, declared length, fractional digits, ENUM/SET labels, character set) and the {@link
 * ValueType} they decode to. Built from the catalogue ({@link CatalogTypes}) for snapshot reads and
 * from the binlog's table map ({@link TableMapTypes}) for the stream; both give the same column the
 * same value type. Immutable.
 */
@Internal
public final class MySqlColumn implements Serializable {
    private static final long serialVersionUID = 1L;
    /** A VECTOR's values: lists of floats, as PostgreSQL's {@code real[]} (never a null entry). */
    private static final ValueType VECTOR_TYPE = ValueType.arrayOf(ValueType.of(ValueKind.FLOAT32));

    /** What decides a column's decoding. */
    public enum Family {
        INTEGER, BIGINT, DECIMAL, FLOAT, DOUBLE, BOOLEAN_BIT, BITS, YEAR,
        CHAR, TEXT, JSON, ENUM, SET, BINARY, BLOB, GEOMETRY,
        DATE, TIME, DATETIME, TIMESTAMP,
        /**
         * MariaDB's UUID, INET4 and INET6, as their text: not {@code ValueKind.UUID}, whose order (by
         * bytes) is not MariaDB's (which orders time-based UUIDs by node, clock, then time).
         */
        UUID, INET4, INET6,
        /** Oracle MySQL 9's VECTOR(n): a list of at most n 32-bit floats ({@link MySqlVectors}). */
        VECTOR
    }

    private final String table;
    private final String name;
    private final String declared;
    private final Family family;
    private final boolean unsigned;
    /**
     * Integer width in bytes, BIT width in bits, BINARY length in bytes, fractional digits of
     * temporals, a VECTOR's declared dimension (its most entries).
     */
    private final int size;
    private final List<String> labels;
    /** The Java charset of a character column, null for binary and non-character columns. */
    @Nullable private final String charset;
    @Nullable private transient java.nio.charset.Charset javaCharset;

    MySqlColumn(String table, String name, String declared, Family family, boolean unsigned, int size,
            List<String> labels, @Nullable String charset) {
        this.table = Objects.requireNonNull(table, "table");
        this.name = Objects.requireNonNull(name, "name");
        this.declared = Objects.requireNonNull(declared, "declared");
        this.family = Objects.requireNonNull(family, "family");
        this.unsigned = unsigned;
        this.size = size;
        this.labels = List.copyOf(labels);
        this.charset = charset;
    }

    public String name() {
        return name;
    }

    public String table() {
        return table;
    }

    /** The declared type as the source describes it, for messages. */
    public String declared() {
        return declared;
    }

    public Family family() {
        return family;
    }

    public boolean unsigned() {
        return unsigned;
    }

    /**
     * Integer width in bytes, BIT width in bits, BINARY length in bytes, declared fractional digits
     * or a VECTOR's declared dimension.
     */
    public int size() {
        return size;
    }

    public List<String> labels() {
        return labels;
    }

    @Nullable
    public String charset() {
        return charset;
    }

    /** The Java charset of a character column, looked up once. */
    java.nio.charset.Charset javaCharset() {
        java.nio.charset.Charset known = javaCharset;
        if (known == null) {
            known = java.nio.charset.Charset.forName(charset);
            javaCharset = known;
        }
        return known;
    }

    public ValueType valueType() {
        switch (family) {
            case INTEGER:
            case YEAR:
                return ValueType.of(ValueKind.INTEGER);
            case BIGINT:
                return ValueType.of(unsigned ? ValueKind.UNSIGNED_BIGINT : ValueKind.BIGINT);
            case DECIMAL:
                return ValueType.of(ValueKind.DECIMAL);
            case FLOAT:
                return ValueType.of(ValueKind.FLOAT32);
            case DOUBLE:
                return ValueType.of(ValueKind.FLOAT64);
            case BOOLEAN_BIT:
                return ValueType.of(ValueKind.BOOLEAN);
            case BITS:
                return ValueType.of(ValueKind.BITS);
            case BINARY:
            case BLOB:
            case GEOMETRY:
                return ValueType.of(ValueKind.BYTES);
            case DATE:
                return ValueType.of(ValueKind.DATE);
            case TIME:
                return ValueType.temporal(ValueKind.TIME, size);
            case DATETIME:
                return ValueType.temporal(ValueKind.TIMESTAMP, size);
            case TIMESTAMP:
                return ValueType.temporal(ValueKind.TIMESTAMP_TZ, size);
            case VECTOR:
                return VECTOR_TYPE;
            default:
                return ValueType.of(ValueKind.TEXT);
        }
    }

    /** A failure to decode a value of this column, naming table, column and type, never the value. */
    public CdcException decodeFailure(String why) {
        return new CdcException(CdcException.Kind.DECODE, "Cannot decode a value of " + table + "." + name + " ("
                + declared + ") exactly: " + why);
    }

    @Override
    public String toString() {
        return name + " " + declared + " -> " + valueType();
    }
}
