package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.math.BigInteger;
import java.util.Locale;
import javax.annotation.Nullable;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The type mapping every connector shares, decided by value kind: a declared Flink type that could
 * round, truncate or wrap a value is refused when the job is planned. What only the declared type text
 * says (an integer's range, a decimal's digits, an array's element type) a connector answers in its
 * subclass, from the text as its catalogue writes it (lower-cased here). Some single values still
 * cannot be held (an infinity date, a numeric NaN in a DECIMAL, a TIME with microseconds): those fail
 * when they arrive, in {@link FieldConverter}.
 */
abstract class ExactTypes implements ConnectorTypes {
    private static final long serialVersionUID = 1L;

    /** The smallest and largest value of a column of an integer kind whose declared type is {@code declared}. */
    abstract BigInteger[] integerRange(String declared, ValueKind kind);

    /** The precision and scale a decimal column declares, or null when it declares none (any number). */
    @Nullable
    abstract int[] decimalDigits(String declared);

    /** Whether a column of integer kind may be declared BOOLEAN (its values then checked to be 0 or 1). */
    boolean integerAsBoolean(String declared) {
        return false;
    }

    /** The declared type of the elements of an array column. */
    String elementType(String declared) {
        return declared;
    }

    @Override
    @Nullable
    public final String problem(RowShape.Column column, ValueType type, LogicalType flink) {
        String declared = column.dataType().toLowerCase(Locale.ROOT);
        LogicalTypeRoot root = flink.getTypeRoot();
        switch (type.kind()) {
            case BOOLEAN:
                return root == LogicalTypeRoot.BOOLEAN ? null : "use BOOLEAN";
            case INTEGER:
                if (root == LogicalTypeRoot.BOOLEAN && integerAsBoolean(declared)) {
                    return null; // chosen by declaring it: 0 and 1 only, checked per value
                }
                return integerProblem(declared, type.kind(), flink);
            case BIGINT:
            case UNSIGNED_BIGINT:
                return integerProblem(declared, type.kind(), flink);
            case DECIMAL:
                return decimalProblem(declared, flink);
            case FLOAT32:
                return root == LogicalTypeRoot.FLOAT || root == LogicalTypeRoot.DOUBLE ? null : "use FLOAT or DOUBLE";
            case FLOAT64:
                return root == LogicalTypeRoot.DOUBLE ? null : "use DOUBLE";
            case TEXT:
            case UUID:
                return isString(flink) ? null : "use STRING";
            case BYTES:
            case BITS:
                return root == LogicalTypeRoot.VARBINARY && ((VarBinaryType) flink).getLength() == VarBinaryType.MAX_LENGTH
                        ? null : "use BYTES";
            case DATE:
                return root == LogicalTypeRoot.DATE ? null : "use DATE";
            case TIME:
                // Flink SQL declares TIME up to precision 3: finer values fail one by one when they arrive
                return root == LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE
                        && ((TimeType) flink).getPrecision() >= timePrecision(type) ? null
                        : "use TIME(" + timePrecision(type) + ")";
            case TIMESTAMP:
                return root == LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE
                        && ((TimestampType) flink).getPrecision() >= precision(type) ? null
                        : "use TIMESTAMP(" + precision(type) + ")";
            case TIMESTAMP_TZ:
                return root == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE
                        && ((LocalZonedTimestampType) flink).getPrecision() >= precision(type) ? null
                        : "use TIMESTAMP_LTZ(" + precision(type) + ")";
            case ARRAY: {
                if (root != LogicalTypeRoot.ARRAY) {
                    return "use ARRAY<...>";
                }
                String inner = problem(element(column, declared), type.element(), ((ArrayType) flink).getElementType());
                return inner == null ? null : "elements: " + inner;
            }
            default:
                return "no Flink type holds it";
        }
    }

    @Override
    public final String defaultType(RowShape.Column column, ValueType type) {
        String declared = column.dataType().toLowerCase(Locale.ROOT);
        switch (type.kind()) {
            case BOOLEAN:
                return "BOOLEAN";
            case INTEGER:
                return smallestHolding(integerRange(declared, type.kind()));
            case BIGINT:
                return "BIGINT";
            case UNSIGNED_BIGINT:
                return "DECIMAL(20, 0)";
            case DECIMAL: {
                int[] digits = decimalDigits(declared);
                return digits != null && digits[0] <= DecimalType.MAX_PRECISION
                        ? "DECIMAL(" + digits[0] + ", " + digits[1] + ")" : "STRING";
            }
            case FLOAT32:
                return "FLOAT";
            case FLOAT64:
                return "DOUBLE";
            case BYTES:
            case BITS:
                return "BYTES";
            case DATE:
                return "DATE";
            case TIME:
                return "TIME(" + timePrecision(type) + ")";
            case TIMESTAMP:
                return "TIMESTAMP(" + precision(type) + ")";
            case TIMESTAMP_TZ:
                return "TIMESTAMP_LTZ(" + precision(type) + ")";
            case ARRAY:
                return "ARRAY<" + defaultType(element(column, declared), type.element()) + ">";
            default:
                return "STRING";
        }
    }

    /** The range of a signed integer of {@code n} bits. */
    static BigInteger[] bits(int n) {
        BigInteger half = BigInteger.ONE.shiftLeft(n - 1);
        return new BigInteger[] {half.negate(), half.subtract(BigInteger.ONE)};
    }

    /** The range of an unsigned integer of {@code n} bits. */
    static BigInteger[] unsignedBits(int n) {
        return new BigInteger[] {BigInteger.ZERO, BigInteger.ONE.shiftLeft(n).subtract(BigInteger.ONE)};
    }

    /** The range of a 64-bit integer of {@code kind}: unsigned for {@code UNSIGNED_BIGINT}. */
    static BigInteger[] range64(ValueKind kind) {
        return kind == ValueKind.UNSIGNED_BIGINT ? unsignedBits(64) : bits(64);
    }

    private RowShape.Column element(RowShape.Column array, String declared) {
        return RowShape.Column.of(array.name(), elementType(declared), true);
    }

    private static int precision(ValueType type) {
        return type.precision() == ValueType.UNSPECIFIED_PRECISION ? 6 : type.precision();
    }

    private static int timePrecision(ValueType type) {
        return Math.min(precision(type), 3);
    }

    private static boolean isString(LogicalType flink) {
        return flink.getTypeRoot() == LogicalTypeRoot.VARCHAR && ((VarCharType) flink).getLength() == VarCharType.MAX_LENGTH;
    }

    private String integerProblem(String declared, ValueKind kind, LogicalType flink) {
        BigInteger[] range = integerRange(declared, kind);
        BigInteger[] target = targetRange(flink);
        if (target != null && target[0].compareTo(range[0]) <= 0 && target[1].compareTo(range[1]) >= 0) {
            return null;
        }
        return "its values range from " + range[0] + " to " + range[1] + "; use a type that holds them all";
    }

    private static String smallestHolding(BigInteger[] range) {
        String[] names = {"TINYINT", "SMALLINT", "INT", "BIGINT"};
        int[] widths = {8, 16, 32, 64};
        for (int i = 0; i < names.length; i++) {
            BigInteger[] target = bits(widths[i]);
            if (target[0].compareTo(range[0]) <= 0 && target[1].compareTo(range[1]) >= 0) {
                return names[i];
            }
        }
        return "DECIMAL(20, 0)";
    }

    @Nullable
    private static BigInteger[] targetRange(LogicalType flink) {
        switch (flink.getTypeRoot()) {
            case TINYINT:
                return bits(8);
            case SMALLINT:
                return bits(16);
            case INTEGER:
                return bits(32);
            case BIGINT:
                return bits(64);
            case DECIMAL: {
                DecimalType d = (DecimalType) flink;
                if (d.getScale() != 0) {
                    return null;
                }
                BigInteger max = BigInteger.TEN.pow(d.getPrecision()).subtract(BigInteger.ONE);
                return new BigInteger[] {max.negate(), max};
            }
            default:
                return null;
        }
    }

    private String decimalProblem(String declared, LogicalType flink) {
        if (isString(flink)) {
            return null;
        }
        int[] digits = decimalDigits(declared);
        if (digits == null) {
            return "its precision is not declared, so only STRING holds every value";
        }
        int p = digits[0];
        int s = digits[1];
        if (flink.getTypeRoot() != LogicalTypeRoot.DECIMAL) {
            return p > DecimalType.MAX_PRECISION ? "use STRING" : "use DECIMAL(" + p + ", " + s + ") or STRING";
        }
        DecimalType d = (DecimalType) flink;
        if (d.getScale() != s || d.getPrecision() - d.getScale() < p - s) {
            return p > DecimalType.MAX_PRECISION ? "use STRING: Flink's DECIMAL holds 38 digits"
                    : "use DECIMAL(" + p + ", " + s + ") or STRING";
        }
        return null;
    }
}
