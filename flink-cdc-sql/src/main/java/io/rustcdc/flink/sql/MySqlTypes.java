package io.rustcdc.flink.sql;

import io.rustcdc.flink.mysql.ColumnCharsets;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import java.math.BigInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.annotation.Nullable;

/**
 * MySQL's and MariaDB's types in Flink SQL, from the declared type as {@code information_schema.COLUMNS.COLUMN_TYPE}
 * writes it: {@code tinyint(4)}, {@code int(10) unsigned}, {@code year(4)}, {@code decimal(12,4) unsigned zerofill}.
 * A {@code tinyint(1)} may be declared BOOLEAN, MySQL's own convention: its values are then checked to be 0 or 1.
 * Oracle MySQL 9's {@code vector(N)} is an array of 32-bit floats, never null: {@code ARRAY<FLOAT NOT NULL>} (or
 * {@code ARRAY<FLOAT>}, {@code ARRAY<DOUBLE>}); N bounds its length, which Flink's ARRAY does not declare. A text
 * column's type carries its character set unless utf8mb4 ({@code varchar(50) character set latin1}): a conversion
 * keeps the values only into a set that holds every old character ({@link ColumnCharsets#keepsText}).
 */
final class MySqlTypes extends ExactTypes {
    private static final long serialVersionUID = 1L;
    private static final Pattern DECIMAL = Pattern.compile("decimal\\((\\d+),(\\d+)\\)(?: unsigned)?(?: zerofill)?");
    /** MySQL's TINYINT(1), which a table may declare as BOOLEAN. */
    private static final Pattern TINYINT_1 = Pattern.compile("tinyint\\(1\\)( unsigned)?");
    /** An integer type as declared, with an optional display width, UNSIGNED and ZEROFILL. */
    private static final Pattern VECTOR = Pattern.compile("vector\\(\\d+\\)");
    private static final Pattern INTEGER =
            Pattern.compile("(tinyint|smallint|mediumint|int|year)(?:\\(\\d+\\))?( unsigned)?(?: zerofill)?");

    @Override
    BigInteger[] integerRange(String declared, ValueKind kind) {
        Matcher m = INTEGER.matcher(declared);
        if (!m.matches()) {
            return range64(kind); // bigint, bigint(20) unsigned
        }
        String base = m.group(1);
        if (base.equals("year")) {
            return new BigInteger[] {BigInteger.ZERO, BigInteger.valueOf(2155)};
        }
        int width = base.equals("tinyint") ? 8 : base.equals("smallint") ? 16 : base.equals("mediumint") ? 24 : 32;
        return m.group(2) != null ? unsignedBits(width) : bits(width);
    }

    @Override
    @Nullable
    int[] decimalDigits(String declared) {
        Matcher m = DECIMAL.matcher(declared);
        return m.matches() ? new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))} : null;
    }

    /** A VECTOR's entries are FLOATs: the value kind already says so, the declared text only names them. */
    @Override
    String elementType(String declared) {
        return VECTOR.matcher(declared).matches() ? "float" : declared;
    }

    @Override
    boolean integerAsBoolean(String declared) {
        return TINYINT_1.matcher(declared).matches();
    }

    /** The source checks {@code binlog_row_image = FULL} when it starts, in either changelog mode. */
    @Override
    public String wholeRowsRemedy(TableId table) {
        return "SET GLOBAL binlog_row_image = 'FULL' (and in the server's configuration file; it applies to events "
                + "written after the change)";
    }

    @Override
    public String partialRowCause() {
        return "the server logged only some of the row's columns";
    }

    @Override
    public boolean upsertNeedsOnlyKeys() {
        return false;
    }

    @Override
    public boolean keepsValues(String before, String after) {
        // the shape's type carries a text column's set unless utf8mb4 (varchar(50) character set latin1)
        return ValueKeepingTypes.mysql(ColumnCharsets.baseType(before), ColumnCharsets.baseType(after))
                && ColumnCharsets.keepsText(before, after);
    }
}
