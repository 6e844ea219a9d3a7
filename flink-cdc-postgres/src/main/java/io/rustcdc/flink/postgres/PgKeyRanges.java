package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.DenseKeyChunks;
import io.rustcdc.flink.source.spi.TableDescription;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.annotation.Nullable;

/**
 * A table's integer keys as {@link DenseKeyChunks} asks for them: the least and greatest key after one
 * ({@code min} and {@code max}, two index lookups), and the planner's estimate of the row count ({@code
 * pg_class.reltuples}, which {@code ANALYZE} and {@code VACUUM} set; -1 or 0 for a table never analysed, whose
 * ends are then counted).
 */
final class PgKeyRanges implements DenseKeyChunks.Keys {
    private final Connection connection;

    PgKeyRanges(Connection connection) {
        this.connection = connection;
    }

    @Override
    @Nullable
    public long[] range(TableDescription table, String keyColumn, @Nullable Long after) throws SQLException {
        String key = PgLiterals.quoteIdentifier(keyColumn);
        int field = table.rowType().indexOf(keyColumn);
        // a literal of the key's own type: an oid key has no operator with a bigint
        String sql = "SELECT min(" + key + "), max(" + key + ") FROM " + PgPrerequisites.qualified(table.table())
                + (after == null ? "" : " WHERE " + key + " > "
                        + PgLiterals.of(table.rowType().type(field), table.shape().columns().get(field).dataType(), after));
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                long min = rs.getLong(1);
                return rs.wasNull() ? null : new long[] {min, rs.getLong(2)};
            }
        }
    }

    @Override
    public long rowEstimate(TableId table) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("SELECT c.reltuples::bigint FROM pg_class c JOIN "
                + "pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ?")) {
            s.setString(1, table.schema());
            s.setString(2, table.table());
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }
}
