package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.math.BigInteger;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * Which Flink types hold every value of a source column exactly, decided from the column's declared
 * type and value kind. A declared Flink type that could round, truncate or wrap a value is refused
 * when the job is planned. Some single values still cannot be held (an infinity date, a numeric NaN
 * in a DECIMAL, a TIME with microseconds): those fail when they arrive.
 */
final class TypeMapping {
    private static final Pattern NUMERIC = Pattern.compile("(?:numeric|decimal)\\((\\d+),(\\d+)\\)(?: unsigned)?(?: zerofill)?");
    /** MySQL's TINYINT(1), which a table may declare as BOOLEAN. */
    private static final Pattern TINYINT_1 = Pattern.compile("tinyint\\(1\\)( unsigned)?");
    /** A MySQL integer type as declared: {@code tinyint(4)}, {@code int(10) unsigned}, {@code year(4)}. */
    private static final Pattern MYSQL_INTEGER = Pattern.compile("(tinyint|smallint|mediumint|int|year)(?:\\(\\d+\\))?( unsigned)?(?: zerofill)?");

    private TypeMapping() {}

    /** Why {@code flink} cannot hold the column's values exactly, or null when it can. */
    @Nullable
    static String problem(RowShape.Column column, ValueType type, LogicalType flink) {
        String declared = column.dataType().toLowerCase(Locale.ROOT);
        LogicalTypeRoot root = flink.getTypeRoot();
        switch (type.kind()) {
            case BOOLEAN:
                return root == LogicalTypeRoot.BOOLEAN ? null : "use BOOLEAN";
            case INTEGER:
                if (root == LogicalTypeRoot.BOOLEAN && TINYINT_1.matcher(declared).matches()) {
                    return null; // MySQL's boolean convention, chosen by declaring it: 0 and 1 only, checked per value
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
                String inner = problem(RowShape.Column.of(column.name(), declared.replaceFirst("\\[]$", ""), true),
                        type.element(), ((ArrayType) flink).getElementType());
                return inner == null ? null : "elements: " + inner;
            }
            default:
                return "no Flink type holds it";
        }
    }

    /** The Flink type a declared source type maps to by default, as documented. */
    static String suggestion(RowShape.Column column, ValueType type) {
        String declared = column.dataType().toLowerCase(Locale.ROOT);
        switch (type.kind()) {
            case BOOLEAN:
                return "BOOLEAN";
            case INTEGER:
                return smallestHolding(range(declared, type.kind()));
            case BIGINT:
                return "BIGINT";
            case UNSIGNED_BIGINT:
                return "DECIMAL(20, 0)";
            case DECIMAL: {
                Matcher m = NUMERIC.matcher(declared);
                return m.matches() && Integer.parseInt(m.group(1)) <= DecimalType.MAX_PRECISION
                        ? "DECIMAL(" + m.group(1) + ", " + m.group(2) + ")" : "STRING";
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
                return "ARRAY<" + suggestion(RowShape.Column.of(column.name(), declared.replaceFirst("\\[]$", ""), true),
                        type.element()) + ">";
            default:
                return "STRING";
        }
    }

    static int precision(ValueType type) {
        return type.precision() == ValueType.UNSPECIFIED_PRECISION ? 6 : type.precision();
    }

    static int timePrecision(ValueType type) {
        return Math.min(precision(type), 3);
    }

    static boolean isString(LogicalType flink) {
        return flink.getTypeRoot() == LogicalTypeRoot.VARCHAR && ((VarCharType) flink).getLength() == VarCharType.MAX_LENGTH;
    }

    private static String integerProblem(String declared, ValueKind kind, LogicalType flink) {
        BigInteger[] range = range(declared, kind);
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

    private static BigInteger[] range(String declared, ValueKind kind) {
        Matcher mysql = MYSQL_INTEGER.matcher(declared);
        if (mysql.matches()) {
            return mysqlRange(mysql.group(1), mysql.group(2) != null);
        }
        switch (declared) {
            case "smallint":
                return bits(16);
            case "integer":
                return bits(32);
            case "oid":
            case "xid":
            case "cid":
                return new BigInteger[] {BigInteger.ZERO, BigInteger.ONE.shiftLeft(32).subtract(BigInteger.ONE)};
            default:
                return kind == ValueKind.UNSIGNED_BIGINT
                        ? new BigInteger[] {BigInteger.ZERO, BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE)}
                        : bits(64);
        }
    }

    private static BigInteger[] mysqlRange(String base, boolean unsigned) {
        if (base.equals("year")) {
            return new BigInteger[] {BigInteger.ZERO, BigInteger.valueOf(2155)};
        }
        int width = base.equals("tinyint") ? 8 : base.equals("smallint") ? 16 : base.equals("mediumint") ? 24 : 32;
        return unsigned ? new BigInteger[] {BigInteger.ZERO, BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE)}
                : bits(width);
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

    private static BigInteger[] bits(int n) {
        BigInteger half = BigInteger.ONE.shiftLeft(n - 1);
        return new BigInteger[] {half.negate(), half.subtract(BigInteger.ONE)};
    }

    private static String decimalProblem(String declared, LogicalType flink) {
        if (isString(flink)) {
            return null;
        }
        Matcher m = NUMERIC.matcher(declared);
        if (!m.matches()) {
            return "its precision is not declared, so only STRING holds every value";
        }
        int p = Integer.parseInt(m.group(1));
        int s = Integer.parseInt(m.group(2));
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
