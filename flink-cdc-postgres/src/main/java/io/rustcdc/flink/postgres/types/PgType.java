package io.rustcdc.flink.postgres.types;

import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.DecimalNumerals;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Objects;
import java.util.UUID;

/**
 * A column type as declared ({@code format_type} of its type OID and modifier), the value type
 * its values decode to, the decoder from PostgreSQL's text form, and for the built-in types whose
 * binary form is read here the decoder from that form, which gives the same values. Immutable.
 */
public final class PgType {
    // OIDs of built-in types (pg_type.dat); stable across PostgreSQL versions.
    static final int BOOL = 16;
    static final int BYTEA = 17;
    static final int NAME = 19;
    static final int INT8 = 20;
    static final int INT2 = 21;
    static final int INT4 = 23;
    static final int TEXT = 25;
    static final int OID = 26;
    static final int XID = 28;
    static final int CID = 29;
    static final int JSON = 114;
    static final int FLOAT4 = 700;
    static final int FLOAT8 = 701;
    static final int BPCHAR = 1042;
    static final int VARCHAR = 1043;
    static final int DATE = 1082;
    static final int TIME = 1083;
    static final int TIMESTAMP = 1114;
    static final int TIMESTAMPTZ = 1184;
    static final int NUMERIC = 1700;
    static final int UUID_OID = 2950;
    static final int JSONB = 3802;

    private static final TextDecoder INTEGER = TextDecoder.inPlace(PgType::integer);

    private final String declared;
    private final ValueType valueType;
    private final TextDecoder decoder;
    private final BinaryDecoder binaryDecoder;

    private PgType(String declared, ValueType valueType, TextDecoder decoder, BinaryDecoder binaryDecoder) {
        this.declared = Objects.requireNonNull(declared, "declared");
        this.valueType = valueType;
        this.decoder = decoder;
        this.binaryDecoder = binaryDecoder;
    }

    private static PgType of(String declared, ValueKind kind, TextDecoder decoder, BinaryDecoder binaryDecoder) {
        return new PgType(declared, ValueType.of(kind), decoder, binaryDecoder);
    }

    /**
     * The type of a column whose type has OID {@code oid} (a base type, not an array or domain)
     * and modifier {@code typmod}.
     */
    static PgType scalar(int oid, int typmod, String declared) {
        switch (oid) {
            case BOOL:
                return of(declared, ValueKind.BOOLEAN, TextDecoder.inPlace(PgType::bool), PgBinary::bool);
            case BYTEA:
                return of(declared, ValueKind.BYTES, PgType::bytea, PgBinary::bytea);
            case INT8:
                return of(declared, ValueKind.BIGINT, INTEGER, PgBinary::int8);
            case INT2:
                return of(declared, ValueKind.INTEGER, INTEGER, PgBinary::int2);
            case INT4:
                return of(declared, ValueKind.INTEGER, INTEGER, PgBinary::int4);
            case OID:
            case XID:
            case CID:
                return of(declared, ValueKind.INTEGER, INTEGER, PgBinary::uint4);
            case FLOAT4:
                return of(declared, ValueKind.FLOAT32, Float::valueOf, PgBinary::float4);
            case FLOAT8:
                return of(declared, ValueKind.FLOAT64, Double::valueOf, PgBinary::float8);
            case NUMERIC:
                return of(declared, ValueKind.DECIMAL, TextDecoder.inPlace(PgType::numeric), PgBinary::numeric);
            case DATE:
                return of(declared, ValueKind.DATE, TextDecoder.inPlace(PgTemporal::date), PgBinary::date);
            case TIME:
                return new PgType(declared, ValueType.temporal(ValueKind.TIME, precision(typmod)),
                        TextDecoder.inPlace(PgTemporal::time), PgBinary::time);
            case TIMESTAMP:
                return new PgType(declared, ValueType.temporal(ValueKind.TIMESTAMP, precision(typmod)),
                        TextDecoder.inPlace(PgTemporal::timestamp), PgBinary::timestamp);
            case TIMESTAMPTZ:
                return new PgType(declared, ValueType.temporal(ValueKind.TIMESTAMP_TZ, precision(typmod)),
                        TextDecoder.inPlace(PgTemporal::timestampTz), PgBinary::timestampTz);
            case UUID_OID:
                return of(declared, ValueKind.UUID, UUID::fromString, PgBinary::uuid);
            case TEXT:
            case VARCHAR:
            case BPCHAR:
            case NAME:
            case JSON:
                // their binary form is their text
                return of(declared, ValueKind.TEXT, s -> s, PgBinary::text);
            case JSONB:
                return of(declared, ValueKind.TEXT, s -> s, PgBinary::jsonb);
            default:
                // xml, interval, inet, timetz, money, bit strings and the like: kept as PostgreSQL's own text,
                // and read as text only
                return text(declared);
        }
    }

    /** A type kept as its PostgreSQL text, read as text only (enums, domains, ranges, composites too). */
    static PgType text(String declared) {
        return of(declared, ValueKind.TEXT, s -> s, null);
    }

    /** An array of {@code element}, whose elements are separated by {@code delimiter}. */
    static PgType array(String declared, PgType element, char delimiter) {
        TextDecoder elementDecoder = element.decoder;
        return new PgType(declared, ValueType.arrayOf(element.valueType),
                s -> PgArrays.parse(s, delimiter, elementDecoder), null);
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

    /** The decoder from the type's binary form, or null when it is read as text only. */
    public BinaryDecoder binaryDecoder() {
        return binaryDecoder;
    }

    private static int precision(int typmod) {
        return typmod < 0 ? ValueType.UNSPECIFIED_PRECISION : typmod;
    }

    private static Boolean bool(byte[] t, int from, int to) {
        if (to - from == 1 && t[from] == 't') {
            return Boolean.TRUE;
        }
        if (to - from == 1 && t[from] == 'f') {
            return Boolean.FALSE;
        }
        throw new PgTextException("not a boolean");
    }

    /**
     * A signed decimal integer that a long holds, as int2, int4, int8, oid, xid and cid print; accumulated
     * below zero, as {@link Long#parseLong} does, so that the least long fits.
     */
    private static Long integer(byte[] t, int from, int to) {
        boolean negative = from < to && t[from] == '-';
        int first = negative ? from + 1 : from;
        if (first >= to || to - first > 19) {
            throw notAnInteger();
        }
        long value = 0;
        for (int i = first; i < to; i++) {
            int digit = t[i] - '0';
            if (digit < 0 || digit > 9 || value < Long.MIN_VALUE / 10 || value * 10 < Long.MIN_VALUE + digit) {
                throw notAnInteger();
            }
            value = value * 10 - digit;
        }
        if (!negative && value == Long.MIN_VALUE) {
            throw notAnInteger();
        }
        return negative ? value : -value;
    }

    private static PgTextException notAnInteger() {
        return new PgTextException("not an integer a long holds");
    }

    private static byte[] bytea(String s) {
        if (!s.startsWith("\\x")) {
            throw new PgTextException("bytea not in hex output (bytea_output must be hex)");
        }
        return HexFormat.of().parseHex(s, 2, s.length());
    }

    private static Object numeric(byte[] t, int from, int to) {
        if (to - from <= 9 && from < to && !Character.isDigit(t[to - 1])) {
            switch (new String(t, from, to - from, StandardCharsets.US_ASCII)) {
                case "NaN":
                    return SpecialValue.NAN;
                case "Infinity":
                    return SpecialValue.POSITIVE_INFINITY;
                case "-Infinity":
                    return SpecialValue.NEGATIVE_INFINITY;
                default:
                    break;
            }
        }
        return DecimalNumerals.parse(t, from, to);
    }

    @Override
    public String toString() {
        return declared + " -> " + valueType;
    }
}
