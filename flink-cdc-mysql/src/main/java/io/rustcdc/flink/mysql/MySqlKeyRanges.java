package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.DenseKeyChunks;
import io.rustcdc.flink.source.spi.TableDescription;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.annotation.Nullable;

/**
 * A table's integer keys as {@link DenseKeyChunks} asks for them: the least and greatest key after one
 * ({@code MIN} and {@code MAX}, two index lookups), and the engine's estimate of the row count ({@code
 * information_schema.TABLES.TABLE_ROWS}; on Oracle MySQL read live, not from the catalogue's cache, which
 * keeps it up to a day by default).
 */
final class MySqlKeyRanges implements DenseKeyChunks.Keys {
    private final Connection connection;
    private final ServerFlavor flavor;
    private boolean liveStatistics;

    MySqlKeyRanges(Connection connection, ServerFlavor flavor) {
        this.connection = connection;
        this.flavor = flavor;
    }

    @Override
    @Nullable
    public long[] range(TableDescription table, String keyColumn, @Nullable Long after) throws SQLException {
        String key = MySqlSql.quote(keyColumn);
        String sql = "SELECT MIN(" + key + "), MAX(" + key + ") FROM " + MySqlSql.qualified(table.table())
                + (after == null ? "" : " WHERE " + key + " > ?");
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            if (after != null) {
                s.setLong(1, after);
            }
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                long min = rs.getLong(1);
                return rs.wasNull() ? null : new long[] {min, rs.getLong(2)};
            }
        }
    }

    @Override
    public long rowEstimate(TableId table) throws SQLException {
        if (flavor == ServerFlavor.MYSQL && !liveStatistics) {
            try (Statement s = connection.createStatement()) {
                s.execute("SET SESSION information_schema_stats_expiry = 0");
            }
            liveStatistics = true;
        }
        try (PreparedStatement s = connection.prepareStatement("SELECT TABLE_ROWS FROM information_schema.TABLES "
                + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
            s.setString(1, table.database());
            s.setString(2, table.table());
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }
}
