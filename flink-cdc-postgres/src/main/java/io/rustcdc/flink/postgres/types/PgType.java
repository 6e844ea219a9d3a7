package io.rustcdc.flink.postgres.types;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.math.BigDecimal;
import java.util.HexFormat;
import java.util.Objects;
import java.util.UUID;

/**
 * A column type as declared ({@code format_type} of its type OID and modifier), the value type
 * its values decode to, and the decoder from PostgreSQL's text form. Immutable.
 */
public final class PgType {
    // OIDs of built-in types (pg_type.dat); stable across PostgreSQL versions.
    static final int BOOL = 16;
    static final int BYTEA = 17;
    static final int INT8 = 20;
    static final int INT2 = 21;
    static final int INT4 = 23;
    static final int OID = 26;
    static final int XID = 28;
    static final int CID = 29;
    static final int FLOAT4 = 700;
    static final int FLOAT8 = 701;
    static final int DATE = 1082;
    static final int TIME = 1083;
    static final int TIMESTAMP = 1114;
    static final int TIMESTAMPTZ = 1184;
    static final int NUMERIC = 1700;
    static final int UUID_OID = 2950;

    private final String declared;
    private final ValueType valueType;
    private final TextDecoder decoder;

    private PgType(String declared, ValueType valueType, TextDecoder decoder) {
        this.declared = Objects.requireNonNull(declared, "declared");
        this.valueType = valueType;
        this.decoder = decoder;
    }

    /**
     * The type of a column whose type has OID {@code oid} (a base type, not an array or domain)
     * and modifier {@code typmod}.
     */
    static PgType scalar(int oid, int typmod, String declared) {
        switch (oid) {
            case BOOL:
                return new PgType(declared, ValueType.of(ValueKind.BOOLEAN), PgType::bool);
            case BYTEA:
                return new PgType(declared, ValueType.of(ValueKind.BYTES), PgType::bytea);
            case INT8:
                return new PgType(declared, ValueType.of(ValueKind.BIGINT), Long::valueOf);
            case INT2:
            case INT4:
            case OID:
            case XID:
            case CID:
                return new PgType(declared, ValueType.of(ValueKind.INTEGER), Long::valueOf);
            case FLOAT4:
                return new PgType(declared, ValueType.of(ValueKind.FLOAT32), Float::valueOf);
            case FLOAT8:
                return new PgType(declared, ValueType.of(ValueKind.FLOAT64), Double::valueOf);
            case NUMERIC:
                return new PgType(declared, ValueType.of(ValueKind.DECIMAL), PgType::numeric);
            case DATE:
                return new PgType(declared, ValueType.of(ValueKind.DATE), PgTemporal::date);
            case TIME:
                return new PgType(declared, ValueType.temporal(ValueKind.TIME, precision(typmod)), PgTemporal::time);
            case TIMESTAMP:
                return new PgType(declared, ValueType.temporal(ValueKind.TIMESTAMP, precision(typmod)), PgTemporal::timestamp);
            case TIMESTAMPTZ:
                return new PgType(declared, ValueType.temporal(ValueKind.TIMESTAMP_TZ, precision(typmod)),
                        PgTemporal::timestampTz);
            case UUID_OID:
                return new PgType(declared, ValueType.of(ValueKind.UUID), UUID::fromString);
            default:
                // text, varchar, bpchar, name, json, jsonb, xml, interval, inet, timetz, money, bit strings,
                // enums, domains, ranges, composites: kept as PostgreSQL's own text
                return text(declared);
        }
    }

    static PgType text(String declared) {
        return new PgType(declared, ValueType.of(ValueKind.TEXT), s -> s);
    }

    /** An array of {@code element}, whose elements are separated by {@code delimiter}. */
    static PgType array(String declared, PgType element, char delimiter) {
        TextDecoder elementDecoder = element.decoder;
        return new PgType(declared, ValueType.arrayOf(element.valueType),
                s -> PgArrays.parse(s, delimiter, elementDecoder));
    }

    /** The declared type as {@code format_type()} writes it, e.g. {@code numeric(12,4)}. */
    public String declared() {
        return declared;
    }

    public ValueType valueType() {
        return valueType;
    }

    public TextDecoder decoder() {
        return decoder;
    }

    private static int precision(int typmod) {
        return typmod < 0 ? ValueType.UNSPECIFIED_PRECISION : typmod;
    }

    private static Boolean bool(String s) {
        switch (s) {
            case "t":
                return Boolean.TRUE;
            case "f":
                return Boolean.FALSE;
            default:
                throw new PgTextException("not a boolean");
        }
    }

    private static byte[] bytea(String s) {
        if (!s.startsWith("\\x")) {
            throw new PgTextException("bytea not in hex output (bytea_output must be hex)");
        }
        return HexFormat.of().parseHex(s, 2, s.length());
    }

    private static Object numeric(String s) {
        switch (s) {
            case "NaN":
                return SpecialValue.NAN;
            case "Infinity":
                return SpecialValue.POSITIVE_INFINITY;
            case "-Infinity":
                return SpecialValue.NEGATIVE_INFINITY;
            default:
                return new BigDecimal(s);
        }
    }

    @Override
    public String toString() {
        return declared + " -> " + valueType;
    }
}
