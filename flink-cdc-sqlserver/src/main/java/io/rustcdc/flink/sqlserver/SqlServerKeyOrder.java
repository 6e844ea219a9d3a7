package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.KeyOrder;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Set;
import java.util.UUID;
import javax.annotation.Nullable;

/**
 * SQL Server's ascending order of chunk key values, for the kinds this connector reproduces exactly:
 * integers, bit, decimal and money, date, datetime2/datetime/smalldatetime, time, and
 * uniqueidentifier, which SQL Server orders by its byte groups from the last to the first (below);
 * NULL first. Text (collations), binary, floating point and datetimeoffset (decoded as text) are not
 * ordered here: a table keyed by one is read as one chunk.
 */
public final class SqlServerKeyOrder implements KeyOrder {
    private static final long serialVersionUID = 1L;

    public static final SqlServerKeyOrder INSTANCE = new SqlServerKeyOrder();

    private static final Set<ValueKind> ORDERED = Set.of(ValueKind.BOOLEAN, ValueKind.INTEGER, ValueKind.BIGINT,
            ValueKind.DECIMAL, ValueKind.DATE, ValueKind.TIMESTAMP, ValueKind.TIME, ValueKind.UUID);

    /**
     * The bytes of a uniqueidentifier as written ({@code 00112233-4455-6677-8899-AABBCCDDEEFF}: byte 0
     * is {@code 00}), most significant first in SQL Server's comparison: the last six, then bytes 8
     * and 9, then the third, second and first groups, each from its last byte to its first (SQL Server
     * stores those groups little-endian and compares the stored bytes 10-15, 8-9, 6-7, 4-5, 0-3).
     */
    private static final int[] UUID_ORDER = {10, 11, 12, 13, 14, 15, 8, 9, 7, 6, 5, 4, 3, 2, 1, 0};

    private SqlServerKeyOrder() {}

    @Override
    public boolean orders(ValueType type) {
        return ORDERED.contains(type.kind());
    }

    @Override
    public int compare(ValueType type, @Nullable Object a, @Nullable Object b) {
        if (!orders(type)) {
            throw new IllegalArgumentException("SQL Server values of " + type + " are not ordered here");
        }
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        switch (type.kind()) {
            case BOOLEAN:
                return Boolean.compare((Boolean) a, (Boolean) b);
            case INTEGER:
            case BIGINT:
                return Long.compare((Long) a, (Long) b);
            case DECIMAL:
                return ((BigDecimal) a).compareTo((BigDecimal) b);
            case DATE:
                return ((LocalDate) a).compareTo((LocalDate) b);
            case TIMESTAMP:
                return ((LocalDateTime) a).compareTo((LocalDateTime) b);
            case TIME:
                return ((Duration) a).compareTo((Duration) b);
            default:
                return compareUuids((UUID) a, (UUID) b);
        }
    }

    static int compareUuids(UUID a, UUID b) {
        byte[] x = bytes(a);
        byte[] y = bytes(b);
        for (int i : UUID_ORDER) {
            int c = Integer.compare(x[i] & 0xFF, y[i] & 0xFF);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static byte[] bytes(UUID u) {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (u.getMostSignificantBits() >>> (56 - 8 * i));
            b[8 + i] = (byte) (u.getLeastSignificantBits() >>> (56 - 8 * i));
        }
        return b;
    }

    private Object readResolve() {
        return INSTANCE;
    }
}
