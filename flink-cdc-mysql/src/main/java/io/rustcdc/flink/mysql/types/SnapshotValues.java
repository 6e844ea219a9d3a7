package io.rustcdc.flink.mysql.types;

import io.rustcdc.flink.source.spi.DecimalNumerals;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.annotation.Nullable;
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
     * whose text round-trips (a FLOAT's own text has six significant digits); dates and times are
     * read as the server's text, as bytes ({@code CAST(... AS BINARY)}): MariaDB Connector/J parses a
     * temporal column's text, moves it through the JVM's time zone and formats it again, dropping the
     * leading zeros of a fraction ({@code 24.095} in a DATETIME(3) came back as {@code 24.950}), and
     * refuses its bytes. The same text as {@code CAST(... AS CHAR)}, without the server's conversion of
     * it to the connection's character set, which cost MariaDB 0.2 µs of its 1.3 per row of a
     * benchmark table with one TIMESTAMP (docs/benchmarks.md).
     */
    public static String select(MySqlColumn column, String quotedName) {
        if (column.family() == MySqlColumn.Family.FLOAT) {
            return "CAST(" + quotedName + " AS DOUBLE)";
        }
        if (temporal(column)) {
            return "CAST(" + quotedName + " AS BINARY)";
        }
        if (column.family() == MySqlColumn.Family.ENUM) {
            // the index tells an invalid value (0) from a label; the catalogue's labels may have lost characters
            return "CONCAT(" + quotedName + " + 0, ',', " + quotedName + ")";
        }
        // a VECTOR as its bytes: its result column has a type (242) the driver does not know
        return readsBytes(column) || column.family() == MySqlColumn.Family.VECTOR
                ? "CAST(" + quotedName + " AS BINARY)" : quotedName;
    }

    private static boolean temporal(MySqlColumn c) {
        return c.family() == MySqlColumn.Family.DATE || c.family() == MySqlColumn.Family.DATETIME
                || c.family() == MySqlColumn.Family.TIMESTAMP || c.family() == MySqlColumn.Family.TIME;
    }

    /**
     * Text in a character set other than UTF-8 is read as its bytes and decoded as the binlog's are:
     * the server's conversion would turn a byte it has no character for into '?' without a word.
     */
    private static boolean readsBytes(MySqlColumn c) {
        return (c.family() == MySqlColumn.Family.CHAR || c.family() == MySqlColumn.Family.TEXT)
                && !"UTF-8".equals(c.charset());
    }

    public static Object decode(MySqlColumn c, ResultSet rs, int index) throws SQLException {
        if (readsBytes(c)) {
            byte[] bytes = rs.getBytes(index);
            return bytes == null ? null : text(c, MySqlCharsets.decode(c, bytes));
        }
        if (temporal(c)) {
            byte[] ascii = rs.getBytes(index); // the server's text of the value (select)
            return ascii == null ? null : text(c, new String(ascii, StandardCharsets.ISO_8859_1));
        }
        switch (c.family()) {
            case BOOLEAN_BIT:
            case BITS:
            case BINARY:
            case BLOB:
            case GEOMETRY: {
                byte[] bytes = rs.getBytes(index);
                return bytes == null ? null : BinaryValues.bytes(c, bytes);
            }
            case VECTOR: {
                byte[] bytes = rs.getBytes(index);
                return bytes == null ? null : MySqlVectors.decode(c, bytes);
            }
            case INTEGER:
                return whole(rs, index);
            case BIGINT:
                if (!c.unsigned()) {
                    return whole(rs, index);
                }
                String digits = rs.getString(index);
                return digits == null ? null : new BigInteger(digits);
            default:
                String text = rs.getString(index);
                return text == null ? null : text(c, text);
        }
    }

    /**
     * An integer that fits a long (every integer type but BIGINT UNSIGNED), as the driver reads the server's digits
     * (sign, digits and no other character in the text protocol): no String is made for it.
     */
    @Nullable
    private static Long whole(ResultSet rs, int index) throws SQLException {
        long value = rs.getLong(index);
        return value == 0 && rs.wasNull() ? null : value;
    }

    private static Object text(MySqlColumn c, String text) {
        switch (c.family()) {
            case YEAR:
                return Long.valueOf(text);
            case DECIMAL:
                return DecimalNumerals.parse(text);
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
            case ENUM: {
                int comma = text.indexOf(',');
                if (text.startsWith("0,")) {
                    throw c.decodeFailure("ENUM index 0 is not one of the type's labels (an invalid value stored as "
                            + "index 0)");
                }
                return text.substring(comma + 1);
            }
            case SET:
                return text; // the server keeps only members that are labels
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
