package io.rustcdc.flink.mysql;

import io.rustcdc.flink.mysql.types.MySqlColumn;
import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chunk ends of a table keyed by one integer column, computed instead of counted. The chunk after
 * {@code after} ends at {@code first + chunkSize - 1}, {@code first} being the first key after {@code
 * after}: it spans {@code chunkSize} integers, so it holds at most {@code chunkSize} rows whatever the
 * keys, and it holds at least one. Finding it takes the server two index lookups ({@code MIN} and {@code
 * MAX} of the keys after {@code after}), where counting {@code chunkSize} rows ({@code LIMIT 1 OFFSET})
 * reads them all: on MariaDB 11.4 a third of what reading the chunk's rows costs the server.
 *
 * <p>Only for a table whose rows fill at least {@link #MIN_DENSITY} of its key range by the server's
 * estimate of its row count, so that its chunks hold nearly {@code chunkSize} rows each: a chunk has a
 * cost of its own (on Oracle MySQL its backfill's binlog connection, about 50 ms on the test machine), and
 * in a sparse table (keys drawn far apart) computed chunks would hold few rows each, so its ends are
 * counted as before. A wrong estimate makes chunks smaller than they could be, never larger. Not
 * thread-safe.
 */
final class DenseKeyChunks {
    private static final Logger LOG = LoggerFactory.getLogger(DenseKeyChunks.class);
    /**
     * The least share of its key range that a table's rows must fill for its chunk ends to be computed: where
     * chunks then hold three quarters of the chunk size, Oracle MySQL's extra chunks cost about what counting
     * saves (50 ms per 50,000 rows of our default chunk size, 19 ms of MariaDB's CPU on the test machine).
     */
    static final double MIN_DENSITY = 0.75;

    private final Connection connection;
    private final ServerFlavor flavor;
    /** Whether each table consulted so far is dense enough, decided once per session. */
    private final Map<TableId, Boolean> dense = new HashMap<>();

    DenseKeyChunks(Connection connection, ServerFlavor flavor) {
        this.connection = connection;
        this.flavor = flavor;
    }

    /**
     * Whether {@link #nextEnd} finds the table's chunk ends: a key of one integer column that is not
     * BIGINT UNSIGNED (whose values are not longs), no row filter (whose chunks are counted in the rows
     * it selects), and a dense table.
     */
    boolean applies(MySqlTable table, List<String> keyColumns, @Nullable String rowFilter) throws SQLException {
        if (rowFilter != null || keyColumns.size() != 1) {
            return false;
        }
        MySqlColumn column = table.column(keyColumns.get(0));
        if (column.family() != MySqlColumn.Family.INTEGER
                && (column.family() != MySqlColumn.Family.BIGINT || column.unsigned())) {
            return false;
        }
        TableId id = table.description.table();
        Boolean known = dense.get(id);
        if (known == null) {
            known = measure(id, keyColumns.get(0));
            dense.put(id, known);
        }
        return known;
    }

    /** The chunk end after {@code after} (the table's start when null), or null when at most {@code chunkSize} rows follow. */
    @Nullable
    Object[] nextEnd(TableId table, String keyColumn, @Nullable Object[] after, int chunkSize) throws SQLException {
        long[] range = keyRange(table, keyColumn, after);
        if (range == null) {
            return null;
        }
        Long end = end(range[0], range[1], chunkSize);
        return end == null ? null : new Object[] {end};
    }

    /**
     * The last key of a chunk that starts at key {@code first} and spans {@code chunkSize} integers, or
     * null when every key up to {@code last} (the greatest) lies in it, so that the rest is the last chunk
     * (also when the chunk would reach past the greatest long).
     */
    @Nullable
    static Long end(long first, long last, int chunkSize) {
        if (chunkSize < 1) {
            throw new IllegalArgumentException("chunk size " + chunkSize);
        }
        long end = first + (chunkSize - 1);
        if (end < first || last <= end) {
            return null;
        }
        return end;
    }

    /** Whether {@code rows} (an estimate) fill at least {@link #MIN_DENSITY} of the keys {@code min} to {@code max}. */
    static boolean dense(long rows, long min, long max) {
        long difference = max - min; // max >= min: an unsigned difference, past the greatest long when negative
        double span = (difference >= 0 ? difference : difference + 0x1p64) + 1.0;
        return rows >= MIN_DENSITY * span;
    }

    private boolean measure(TableId table, String keyColumn) throws SQLException {
        long[] range = keyRange(table, keyColumn, null);
        if (range == null) {
            return false;
        }
        if (flavor == ServerFlavor.MYSQL) {
            try (Statement s = connection.createStatement()) {
                // the row count as the engine estimates it now, not as the catalogue cached it (up to a day)
                s.execute("SET SESSION information_schema_stats_expiry = 0");
            }
        }
        long rows;
        try (PreparedStatement s = connection.prepareStatement("SELECT TABLE_ROWS FROM information_schema.TABLES "
                + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
            s.setString(1, table.database());
            s.setString(2, table.table());
            try (ResultSet rs = s.executeQuery()) {
                rows = rs.next() ? rs.getLong(1) : 0;
            }
        }
        boolean computed = dense(rows, range[0], range[1]);
        LOG.info("Table {}.{}: chunk ends {} (about {} rows by the server's estimate, keys {} to {} of {})",
                table.database(), table.table(), computed ? "computed from the key's range"
                        : "counted by the server (the keys are too sparse to compute them)", rows, range[0], range[1],
                keyColumn);
        return computed;
    }

    /** The least and greatest key after {@code after} (every key when null), or null when there is none. */
    @Nullable
    private long[] keyRange(TableId table, String keyColumn, @Nullable Object[] after) throws SQLException {
        String key = MySqlSql.quote(keyColumn);
        String sql = "SELECT MIN(" + key + "), MAX(" + key + ") FROM " + MySqlSql.qualified(table)
                + (after == null ? "" : " WHERE " + key + " > ?");
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            MySqlSql.bind(s, 1, after);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                long min = rs.getLong(1);
                return rs.wasNull() ? null : new long[] {min, rs.getLong(2)};
            }
        }
    }
}
