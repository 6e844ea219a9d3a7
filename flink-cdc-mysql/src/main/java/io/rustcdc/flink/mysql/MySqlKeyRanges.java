package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.DenseKeyChunks;
import io.rustcdc.flink.source.spi.TableDescription;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
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
        // the chunk queries' predicate, its placeholder bound to after
        String sql = "SELECT MIN(" + key + "), MAX(" + key + ") FROM " + MySqlSql.qualified(table.table())
                + ChunkReader.rangeWhere(List.of(keyColumn), after == null ? null : new Object[] {after}, null, null);
        return after == null ? DenseKeyChunks.range(connection, sql) : DenseKeyChunks.range(connection, sql, after);
    }

    /**
     * Not a {@code YEAR}: MySQL takes a number of 1 to 99 given for a {@code YEAR} as a two-digit year (1 to 69 as
     * 2001 to 2069), and a computed end after the year 0000 may be one. Such a table has at most 256 rows.
     */
    @Override
    public boolean computable(TableDescription table, String keyColumn) {
        return table.shape().column(keyColumn).map(c -> !c.dataType().toLowerCase(Locale.ROOT).startsWith("year"))
                .orElse(false);
    }

    @Override
    public long rowEstimate(TableId table) throws SQLException {
        if (flavor == ServerFlavor.MYSQL && !liveStatistics) {
            try (Statement s = connection.createStatement()) {
                s.execute("SET SESSION information_schema_stats_expiry = 0");
            }
            liveStatistics = true;
        }
        return DenseKeyChunks.rowEstimate(connection, "SELECT TABLE_ROWS FROM information_schema.TABLES "
                + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", table.database(), table.table());
    }
}
