package io.rustcdc.flink.mysql.types;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import org.apache.flink.annotation.Internal;

/**
 * Snapshot values from the text protocol, in a session whose time zone is UTC: each column's text
 * or bytes decoded by its {@link MySqlColumn}, to the same values the binlog gives.
 */
@Internal
public final class SnapshotValues {
    private SnapshotValues() {}

    /**
     * The select-list expression that reads {@code column} exactly: a FLOAT is widened to DOUBLE,
     * whose text round-trips (a FLOAT's own text has six significant digits).
     */
    public static String select(MySqlColumn column, String quotedName) {
        return column.family() == MySqlColumn.Family.FLOAT ? "CAST(" + quotedName + " AS DOUBLE)" : quotedName;
    }

    public static Object decode(MySqlColumn c, ResultSet rs, int index) throws SQLException {
        switch (c.family()) {
            case BOOLEAN_BIT:
            case BITS:
            case BINARY:
            case BLOB:
            case GEOMETRY:
                byte[] bytes = rs.getBytes(index);
                return bytes == null ? null : BinaryValues.bytes(c, bytes);
            default:
                String text = rs.getString(index);
                return text == null ? null : text(c, text);
        }
    }

    private static Object text(MySqlColumn c, String text) {
        switch (c.family()) {
            case INTEGER:
            case YEAR:
            case BIGINT:
                return c.unsigned() && c.family() == MySqlColumn.Family.BIGINT ? new BigInteger(text) : Long.valueOf(text);
            case DECIMAL:
                return new BigDecimal(text);
            case FLOAT: {
                double wide = Double.parseDouble(text);
                float value = (float) wide;
                if (value != wide && !Double.isNaN(wide)) {
                    throw c.decodeFailure("the server sent a FLOAT wider than a float");
                }
                return value;
            }
            case DOUBLE:
                return Double.valueOf(text);
            case CHAR:
                return BinaryValues.withoutTrailingSpaces(text);
            case ENUM:
                if (!c.labels().contains(text)) {
                    throw c.decodeFailure("the value is not one of the type's labels (an invalid ENUM value stored "
                            + "as index 0)");
                }
                return text;
            case SET:
                if (!text.isEmpty() && !c.labels().containsAll(Arrays.asList(text.split(",", -1)))) {
                    throw c.decodeFailure("the value holds a member that is not one of the type's labels");
                }
                return text;
            case DATE:
                return MySqlTemporal.dateText(text);
            case TIME:
                return MySqlTemporal.timeText(text);
            case DATETIME:
                return MySqlTemporal.dateTimeText(text);
            case TIMESTAMP:
                return MySqlTemporal.timestampFromUtc(text);
            default:
                return text;
        }
    }
}
