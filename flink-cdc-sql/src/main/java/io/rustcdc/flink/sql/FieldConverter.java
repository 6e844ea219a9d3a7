package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.ValueType;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Converts one column's typed values into Flink's internal data, straight from the value: no JSON,
 * no string round trip. A value the declared Flink type cannot hold exactly fails with the table,
 * column and both types, never the value.
 */
@FunctionalInterface
interface FieldConverter extends Serializable {
    Object convert(Object value);

    /** The converter of values of {@code source} into {@code target}, which the connector's {@link ConnectorTypes} accepted. */
    static FieldConverter of(ValueType source, LogicalType target, String where) {
        switch (target.getTypeRoot()) {
            case BOOLEAN:
                return source.kind() == io.rustcdc.flink.source.model.ValueKind.INTEGER ? v -> flag(v, where) : v -> v;
            case DOUBLE:
                return v -> v instanceof Float ? (double) (Float) v : v;
            case FLOAT:
                return v -> v;
            case TINYINT:
                return v -> (byte) checkedLong(v, Byte.MIN_VALUE, Byte.MAX_VALUE, where);
            case SMALLINT:
                return v -> (short) checkedLong(v, Short.MIN_VALUE, Short.MAX_VALUE, where);
            case INTEGER:
                return v -> (int) checkedLong(v, Integer.MIN_VALUE, Integer.MAX_VALUE, where);
            case BIGINT:
                return v -> checkedLong(v, Long.MIN_VALUE, Long.MAX_VALUE, where);
            case DECIMAL: {
                DecimalType d = (DecimalType) target;
                return v -> decimal(v, d, where);
            }
            case VARCHAR:
                return v -> StringData.fromString(text(v));
            case VARBINARY:
                return v -> v;
            case DATE:
                return v -> {
                    if (!(v instanceof LocalDate)) {
                        throw unfit(where, "an infinity or zero date, which DATE cannot hold");
                    }
                    return (int) ((LocalDate) v).toEpochDay();
                };
            case TIME_WITHOUT_TIME_ZONE: {
                long granularity = granularity(((TimeType) target).getPrecision());
                return v -> time((Duration) v, granularity, where);
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE: {
                long granularity = granularity(((TimestampType) target).getPrecision());
                return v -> {
                    if (!(v instanceof LocalDateTime)) {
                        throw unfit(where, "an infinity or zero timestamp, which TIMESTAMP cannot hold");
                    }
                    return timestamp(TimestampData.fromLocalDateTime((LocalDateTime) v), granularity, where);
                };
            }
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                long granularity = granularity(((LocalZonedTimestampType) target).getPrecision());
                return v -> {
                    if (!(v instanceof Instant)) {
                        throw unfit(where, "an infinity or zero timestamp, which TIMESTAMP_LTZ cannot hold");
                    }
                    return timestamp(TimestampData.fromInstant((Instant) v), granularity, where);
                };
            }
            case ARRAY: {
                FieldConverter element = of(source.element(), ((ArrayType) target).getElementType(), where);
                return v -> {
                    List<?> list = (List<?>) v;
                    Object[] out = new Object[list.size()];
                    for (int i = 0; i < out.length; i++) {
                        Object e = list.get(i);
                        if (e instanceof List) {
                            throw unfit(where, "a multi-dimensional array, which a one-dimensional ARRAY cannot hold");
                        }
                        out[i] = e == null ? null : element.convert(e);
                    }
                    return new GenericArrayData(out);
                };
            }
            default:
                throw new IllegalArgumentException("No conversion into " + target);
        }
    }

    private static long checkedLong(Object v, long min, long max, String where) {
        long n;
        if (v instanceof BigInteger) {
            BigInteger b = (BigInteger) v;
            if (b.bitLength() > 63) {
                throw unfit(where, "an integer out of the Flink type's range");
            }
            n = b.longValue();
        } else {
            n = (Long) v;
        }
        if (n < min || n > max) {
            throw unfit(where, "an integer out of the Flink type's range");
        }
        return n;
    }

    private static DecimalData decimal(Object v, DecimalType type, String where) {
        if (v instanceof SpecialValue) {
            throw unfit(where, "NaN or an infinity, which DECIMAL cannot hold");
        }
        BigDecimal value = v instanceof BigDecimal ? (BigDecimal) v
                : v instanceof BigInteger ? new BigDecimal((BigInteger) v) : BigDecimal.valueOf((Long) v);
        BigDecimal scaled;
        try {
            scaled = value.setScale(type.getScale(), RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw unfit(where, "more decimal places than the Flink type's scale");
        }
        DecimalData data = DecimalData.fromBigDecimal(scaled, type.getPrecision(), type.getScale());
        if (data == null) {
            throw unfit(where, "more digits than the Flink type's precision");
        }
        return data;
    }

    /** A MySQL TINYINT(1) declared BOOLEAN: 0 and 1 only. */
    private static boolean flag(Object v, String where) {
        long n = (Long) v;
        if (n != 0 && n != 1) {
            throw unfit(where, "a TINYINT(1) value other than 0 and 1, which BOOLEAN cannot hold");
        }
        return n == 1;
    }

    private static int time(Duration d, long granularity, String where) {
        if (d.isNegative() || d.compareTo(Duration.ofDays(1)) >= 0) {
            throw unfit(where, "a time outside 00:00 to 24:00 (exclusive), which TIME cannot hold");
        }
        if (d.getNano() % granularity != 0) {
            throw unfit(where, "a time finer than the declared precision (Flink SQL's TIME holds at most milliseconds)");
        }
        return (int) d.toMillis();
    }

    /** Nanoseconds per unit of a fractional-second precision. */
    private static long granularity(int precision) {
        long g = 1;
        for (int i = precision; i < 9; i++) {
            g *= 10;
        }
        return g;
    }

    /** {@code t}, unless it is finer than the declared precision, which would drop its last digits. */
    private static TimestampData timestamp(TimestampData t, long granularity, String where) {
        if ((t.getNanoOfMillisecond() + t.getMillisecond() % 1000 * 1_000_000L) % granularity != 0) {
            throw unfit(where, "a timestamp finer than the declared precision");
        }
        return t;
    }

    private static String text(Object v) {
        if (v instanceof SpecialValue) {
            return ((SpecialValue) v).numericText();
        }
        if (v instanceof BigDecimal) {
            return ((BigDecimal) v).toPlainString();
        }
        return v.toString();
    }

    private static CdcException unfit(String where, String what) {
        return new CdcException(CdcException.Kind.DECODE, where + " received " + what + "; nothing is rounded, "
                + "truncated or nulled. Declare a type that holds it (see docs/sql.md).");
    }
}
