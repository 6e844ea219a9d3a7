package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chunk ends of a table keyed by one integer column, computed instead of counted ({@link
 * CatalogSession#nextChunkEnd}). The chunk after {@code after} ends at {@code first + chunkSize - 1},
 * {@code first} being the first key after {@code after}: it spans {@code chunkSize} integers, so it holds
 * at most {@code chunkSize} rows whatever the keys, and at least one. Finding it takes the database two
 * index lookups (the least and greatest key after {@code after}), where counting {@code chunkSize} rows
 * ({@code LIMIT 1 OFFSET}) reads them all once more (what that cost each server: docs/benchmarks.md).
 *
 * <p>Only for a table whose rows fill at least half of its key range by the database's
 * estimate of its row count, so that its chunks hold nearly {@code chunkSize} rows each: a chunk has a
 * cost of its own, and in a sparse table (keys drawn far apart) computed chunks would hold few rows each,
 * so its ends are counted as before. An estimate too low makes chunks counted; too high, chunks smaller
 * and more of them; never larger. Not thread-safe.
 */
@Internal
public final class DenseKeyChunks {
    private static final Logger LOG = LoggerFactory.getLogger(DenseKeyChunks.class);

    /** What the database tells of a table's keys. */
    public interface Keys {
        /** The least and greatest key of {@code keyColumn} after {@code after} (every key when null), or null when none. */
        @Nullable
        long[] range(TableDescription table, String keyColumn, @Nullable Long after) throws SQLException;

        /** The database's estimate of the table's row count; 0 (or less) when it has none. */
        long rowEstimate(TableId table) throws SQLException;

        /**
         * Whether any integer between two keys of {@code keyColumn}, as a computed end is, means that number in the
         * chunk queries (true unless the database reads some numbers as other values of the key's type).
         */
        default boolean computable(TableDescription table, String keyColumn) {
            return true;
        }
    }

    /**
     * The least and greatest key as the query {@code sql} of two columns returns them ({@code MIN}, {@code MAX}),
     * its parameters {@code parameters}; null when the least is NULL (no key).
     */
    @Nullable
    public static long[] range(Connection connection, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement s = prepared(connection, sql, parameters); ResultSet rs = s.executeQuery()) {
            rs.next();
            long min = rs.getLong(1);
            return rs.wasNull() ? null : new long[] {min, rs.getLong(2)};
        }
    }

    /** The row estimate as the query {@code sql} of one column returns it, its parameters {@code parameters}; 0 without a row. */
    public static long rowEstimate(Connection connection, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement s = prepared(connection, sql, parameters); ResultSet rs = s.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private static PreparedStatement prepared(Connection connection, String sql, Object... parameters)
            throws SQLException {
        PreparedStatement s = connection.prepareStatement(sql);
        try {
            for (int i = 0; i < parameters.length; i++) {
                s.setObject(i + 1, parameters[i]);
            }
            return s;
        } catch (SQLException e) {
            s.close();
            throw e;
        }
    }

    private final Keys keys;
    /** Whether each table consulted so far is dense enough, decided once per session. */
    private final Map<TableId, Boolean> dense = new HashMap<>();

    public DenseKeyChunks(Keys keys) {
        this.keys = keys;
    }

    /**
     * Whether {@link #nextEnd} finds the table's chunk ends: the chunk key is the table's primary key (so
     * unique: a configured chunk key column may repeat a value, and a chunk of chunkSize integers could then
     * hold any number of rows), of one column of {@link ValueKind#INTEGER} or {@link ValueKind#BIGINT} (whose
     * values are longs) that the database reads as plain numbers ({@link Keys#computable}), no row filter (whose
     * chunks are counted in the rows it selects), and a dense table.
     */
    public boolean applies(TableDescription table, List<String> keyColumns, @Nullable String rowFilter)
            throws SQLException {
        if (rowFilter != null || keyColumns.size() != 1 || !keyColumns.equals(table.shape().primaryKey())) {
            return false;
        }
        ValueKind kind = table.rowType().type(table.rowType().indexOf(keyColumns.get(0))).kind();
        if (kind != ValueKind.INTEGER && kind != ValueKind.BIGINT || !keys.computable(table, keyColumns.get(0))) {
            return false;
        }
        Boolean known = dense.get(table.table());
        if (known == null) {
            known = measure(table, keyColumns.get(0));
            dense.put(table.table(), known);
        }
        return known;
    }

    /** The chunk end after {@code after} (the table's start when null), or null when at most {@code chunkSize} rows follow. */
    @Nullable
    public Object[] nextEnd(TableDescription table, String keyColumn, @Nullable Object[] after, int chunkSize)
            throws SQLException {
        long[] range = keys.range(table, keyColumn, after == null ? null : ((Number) after[0]).longValue());
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

    /**
     * Whether {@code rows} (an estimate) fill at least half of the keys {@code min} to {@code max}, exactly: chunks
     * then hold at least half the chunk size (by the estimate), so at most twice the chunks counting makes, each
     * with its cost (on Oracle MySQL a backfill's binlog connection per chunk). Not more than half: InnoDB's
     * estimate of a small table under writes is rough (an Oracle MySQL table holding 1,202 rows with keys 1 to
     * 1,282 was estimated at 852 to 899 rows in three runs, 20 pages sampled or every page).
     */
    static boolean dense(long rows, long min, long max) {
        long difference = max - min; // max >= min: an unsigned difference, past the greatest long when negative
        long half = (difference >>> 1) + 1; // the span, difference + 1, halved and rounded up: 2^63 at most, unsigned
        return rows >= 0 && Long.compareUnsigned(rows, half) >= 0;
    }

    private boolean measure(TableDescription table, String keyColumn) throws SQLException {
        long[] range = keys.range(table, keyColumn, null);
        if (range == null) {
            return false;
        }
        long rows = keys.rowEstimate(table.table());
        boolean computed = dense(rows, range[0], range[1]);
        LOG.info("Table {}: chunk ends {} ({}, keys {} to {} of {})", table.table().qualifiedName(),
                computed ? "computed from the key's range" : "counted by the database (the keys are too sparse to compute "
                        + "them)", rows > 0 ? "about " + rows + " rows by the database's estimate" : "no estimate of its rows",
                range[0], range[1], keyColumn);
        return computed;
    }
}
