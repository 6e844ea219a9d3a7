package io.rustcdc.flink.mysql.types;

import java.io.Serializable;
import java.math.BigInteger;
import java.util.StringJoiner;
import org.apache.flink.annotation.Internal;

/** Row-event cells (as the stream's exact deserializer reads them) decoded by their {@link MySqlColumn}. */
@Internal
public final class BinlogValues {
    private BinlogValues() {}

    public static Object decode(MySqlColumn c, Serializable cell) {
        switch (c.family()) {
            case INTEGER: {
                long v = ((Number) cell).longValue();
                return c.unsigned() ? v & (-1L >>> (64 - 8 * c.size())) : v;
            }
            case BIGINT: {
                long v = ((Number) cell).longValue();
                return c.unsigned() ? new BigInteger(Long.toUnsignedString(v)) : (Object) v;
            }
            case YEAR: {
                int v = ((Number) cell).intValue();
                return (long) (v == 0 ? 0 : 1900 + v);
            }
            case FLOAT:
            case DOUBLE:
            case DECIMAL:
            case DATE:
            case TIME:
            case DATETIME:
            case TIMESTAMP:
                return cell;
            case CHAR:
                return BinaryValues.withoutTrailingSpaces(MySqlCharsets.decode(c, (byte[]) cell));
            case TEXT:
                return MySqlCharsets.decode(c, (byte[]) cell);
            case JSON:
                try {
                    return MySqlJsonText.text((byte[]) cell);
                } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
                    throw c.decodeFailure("the binary JSON is malformed (" + e.getMessage() + ")");
                }
            case ENUM: {
                int index = ((Number) cell).intValue();
                if (index < 1 || index > c.labels().size()) {
                    throw c.decodeFailure("ENUM index " + index + " is not one of the type's " + c.labels().size()
                            + " labels (an invalid value stored as index 0)");
                }
                return c.labels().get(index - 1);
            }
            case SET:
                return set(c, ((Number) cell).longValue());
            case UUID:
                return MariaDbAddresses.uuid(BinaryValues.padded(c, (byte[]) cell));
            case INET4:
                return MariaDbAddresses.inet4(BinaryValues.padded(c, (byte[]) cell), 0);
            case INET6:
                return MariaDbAddresses.inet6(BinaryValues.padded(c, (byte[]) cell));
            case VECTOR:
                return MySqlVectors.decode(c, (byte[]) cell);
            default:
                return BinaryValues.bytes(c, (byte[]) cell);
        }
    }

    private static String set(MySqlColumn c, long bits) {
        StringJoiner labels = new StringJoiner(",");
        for (int i = 0; i < 64; i++) {
            if ((bits & (1L << i)) != 0) {
                if (i >= c.labels().size()) {
                    throw c.decodeFailure("SET bit " + i + " is beyond the type's " + c.labels().size() + " labels");
                }
                labels.add(c.labels().get(i));
            }
        }
        return labels.toString();
    }
}
