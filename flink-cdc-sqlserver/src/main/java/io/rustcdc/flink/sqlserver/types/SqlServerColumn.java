package io.rustcdc.flink.sqlserver.types;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * One column as {@code sys.columns} describes it (system type name, {@code max_length}, {@code
 * precision}, {@code scale}), and how its values are selected and decoded, alike for the table and
 * its change table: temporal values as {@code CONVERT(varchar, value, 121)} text (the driver's
 * {@code java.sql} temporal types round or shift them), {@code uniqueidentifier} as its text, the
 * others as mssql-jdbc's {@code getObject} returns them. Immutable.
 */
@Internal
public final class SqlServerColumn {
    /** Types whose values carry a type each or are CLR objects: refused by name. */
    private static final Set<String> REFUSED = Set.of("sql_variant", "hierarchyid", "geometry", "geography");

    private final String name;
    private final String type;
    private final int maxLength;
    private final int precision;
    private final int scale;
    private final boolean nullable;
    private final ValueType valueType;

    private SqlServerColumn(String name, String type, int maxLength, int precision, int scale, boolean nullable,
            ValueType valueType) {
        this.name = name;
        this.type = type;
        this.maxLength = maxLength;
        this.precision = precision;
        this.scale = scale;
        this.nullable = nullable;
        this.valueType = valueType;
    }

    /**
     * @param type the system type name ({@code TYPE_NAME(system_type_id)}; {@code timestamp} for rowversion)
     * @throws CdcException of kind PREREQUISITE naming the table, column and type for a type not decoded here
     */
    public static SqlServerColumn of(String table, String name, String type, int maxLength, int precision, int scale,
            boolean nullable) {
        String t = Objects.requireNonNull(type, "type").toLowerCase(Locale.ROOT);
        ValueType valueType = valueType(t, scale);
        if (valueType == null) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "Table " + table + " column " + name + " is of type "
                    + type + (REFUSED.contains(t) ? ", whose values this connector does not decode (" + why(t) + ")"
                            : ", which this connector does not know") + ": exclude the table, or change the column "
                    + "to a type it decodes (ALTER TABLE " + table + " ALTER COLUMN [" + name + "] <type>).");
        }
        return new SqlServerColumn(name, t, maxLength, precision, scale, nullable, valueType);
    }

    private static String why(String type) {
        return type.equals("sql_variant") ? "each value carries a type of its own, which no one column type holds"
                : "a CLR type, whose values mssql-jdbc returns only as serialized bytes";
    }

    @Nullable
    private static ValueType valueType(String type, int scale) {
        switch (type) {
            case "bit":
                return ValueType.of(ValueKind.BOOLEAN);
            case "tinyint":
            case "smallint":
            case "int":
                return ValueType.of(ValueKind.INTEGER);
            case "bigint":
                return ValueType.of(ValueKind.BIGINT);
            case "decimal":
            case "numeric":
            case "money":
            case "smallmoney":
                return ValueType.of(ValueKind.DECIMAL);
            case "real":
                return ValueType.of(ValueKind.FLOAT32);
            case "float":
                return ValueType.of(ValueKind.FLOAT64);
            case "char":
            case "varchar":
            case "nchar":
            case "nvarchar":
            case "text":
            case "ntext":
            case "xml":
            case "datetimeoffset":
                return ValueType.of(ValueKind.TEXT);
            case "binary":
            case "varbinary":
            case "image":
            case "timestamp":
                return ValueType.of(ValueKind.BYTES);
            case "uniqueidentifier":
                return ValueType.of(ValueKind.UUID);
            case "date":
                return ValueType.of(ValueKind.DATE);
            case "datetime2":
                return ValueType.temporal(ValueKind.TIMESTAMP, scale);
            case "datetime":
                return ValueType.temporal(ValueKind.TIMESTAMP, 3);
            case "smalldatetime":
                return ValueType.temporal(ValueKind.TIMESTAMP, 0);
            case "time":
                return ValueType.temporal(ValueKind.TIME, scale);
            default:
                return null;
        }
    }

    public String name() {
        return name;
    }

    public boolean nullable() {
        return nullable;
    }

    /** This column with the nullability of {@code other} (a change table declares every column nullable). */
    public SqlServerColumn withNullability(SqlServerColumn other) {
        return new SqlServerColumn(name, type, maxLength, precision, scale, other.nullable, valueType);
    }

    public ValueType valueType() {
        return valueType;
    }

    /**
     * The declared type in SQL Server's syntax, modifier included: {@code decimal(12,4)}, {@code nvarchar(255)},
     * {@code datetime2(3)}.
     */
    public String dataType() {
        switch (type) {
            case "decimal":
            case "numeric":
                return type + "(" + precision + "," + scale + ")";
            case "char":
            case "varchar":
            case "binary":
            case "varbinary":
                return type + "(" + (maxLength < 0 ? "max" : String.valueOf(maxLength)) + ")";
            case "nchar":
            case "nvarchar":
                return type + "(" + (maxLength < 0 ? "max" : String.valueOf(maxLength / 2)) + ")";
            case "datetime2":
            case "time":
            case "datetimeoffset":
                return type + "(" + scale + ")";
            case "timestamp":
                return "rowversion";
            default:
                return type;
        }
    }

    /**
     * Whether a change table holds this column's old value in an update's old row only when the
     * update changed it (varchar(max), nvarchar(max), varbinary(max), xml), as {@code __$update_mask}
     * says: else it holds NULL there, which is not the value.
     */
    public boolean oldValueOnlyWhenChanged() {
        boolean max = maxLength == -1 && (type.equals("varchar") || type.equals("nvarchar") || type.equals("varbinary"));
        return max || type.equals("xml");
    }

    /** Whether a change table never holds this column's value in a delete's or an update's old row (text, ntext, image). */
    public boolean neverInOldRows() {
        return type.equals("text") || type.equals("ntext") || type.equals("image");
    }

    /** The select-list expression of the column, whose value {@link #read} decodes. */
    public String select(String quotedName) {
        return temporal() ? "CONVERT(varchar(40), " + quotedName + ", 121)" : quotedName;
    }

    private boolean temporal() {
        switch (type) {
            case "date":
            case "datetime2":
            case "datetime":
            case "smalldatetime":
            case "time":
            case "datetimeoffset":
                return true;
            default:
                return false;
        }
    }

    /** The value at {@code index} of {@code rs}, selected by {@link #select}, decoded. */
    @Nullable
    public Object read(ResultSet rs, int index) throws SQLException {
        Object raw = temporal() || type.equals("uniqueidentifier") ? rs.getString(index) : rs.getObject(index);
        return decode(raw);
    }

    /**
     * The value of what mssql-jdbc returned for the column ({@code getString} for temporal and
     * uniqueidentifier columns, else {@code getObject}), in the Java type of its {@link ValueKind}.
     *
     * @throws IllegalArgumentException when the value does not fit the column exactly
     */
    @Nullable
    public Object decode(@Nullable Object raw) {
        if (raw == null) {
            return null;
        }
        switch (valueType.kind()) {
            case BOOLEAN:
                return (Boolean) raw;
            case INTEGER:
            case BIGINT:
                return ((Number) raw).longValue();
            case DECIMAL:
                return decimal((BigDecimal) raw);
            case FLOAT32:
                return (Float) raw;
            case FLOAT64:
                return (Double) raw;
            case BYTES:
                return ((byte[]) raw).clone();
            case UUID:
                return UUID.fromString((String) raw);
            case DATE:
                return SqlServerTemporal.date((String) raw);
            case TIMESTAMP:
                return SqlServerTemporal.dateTime((String) raw, valueType.precision());
            case TIME:
                return SqlServerTemporal.time((String) raw, scale);
            default:
                return type.equals("datetimeoffset") ? SqlServerTemporal.dateTimeOffset((String) raw, scale)
                        : (String) raw;
        }
    }

    /** At the column's scale (4 for money), exactly: a value with more non-zero digits is refused, never rounded. */
    private BigDecimal decimal(BigDecimal value) {
        int declared = type.equals("money") || type.equals("smallmoney") ? 4 : scale;
        try {
            return value.setScale(declared, RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(value + " has more digits than " + dataType() + " holds", e);
        }
    }

    @Override
    public String toString() {
        return name + " " + dataType();
    }
}
