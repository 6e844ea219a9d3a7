package io.rustcdc.flink.mysql;

import io.rustcdc.flink.mysql.types.SnapshotValues;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChunkKeyChanges;
import io.rustcdc.flink.source.spi.DenseKeyChunks;
import io.rustcdc.flink.source.spi.RowFilters;
import io.rustcdc.flink.source.spi.TableDescription;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import javax.annotation.Nullable;

/**
 * One ordinary connection for the catalogue and snapshot chunks, in a UTC session so that a
 * TIMESTAMP reads as the instant the binlog holds. The session finds tables, describes them and
 * finds chunk boundaries; {@link SnapshotPrerequisites} checks the tables, {@link ChunkReader}
 * reads the chunks and {@link BinlogPositions} the positions, all on this connection. Not
 * thread-safe, but {@link #close} may be called from any thread.
 */
final class MySqlSession implements CatalogSession<MySqlPosition, MySqlPosition> {
    /**
     * Seconds the server may wait to send a chunk's rows: the reader streams them to Flink's output,
     * so a backpressured job stops reading the result set, and the server's default (60 s) would then
     * abort the chunk's read. 600 s is what MySQL Connector/J allows a streamed result by default.
     */
    static final int CHUNK_WRITE_TIMEOUT_SECONDS = 600;

    private final MySqlSourceConfig config;
    private final Connection connection;
    private final BinlogPositions positions;
    private final ChunkReader chunks;
    private final MySqlKeyPlacement placement;
    private final DenseKeyChunks denseKeys;

    MySqlSession(MySqlSourceConfig config) {
        this.config = config;
        this.connection = MySqlConnections.connect(config);
        this.positions = new BinlogPositions(config, connection);
        this.placement = new MySqlKeyPlacement();
        this.chunks = new ChunkReader(config, connection, positions, ChunkTables.describing(this::table), placement);
        this.denseKeys = new DenseKeyChunks(new MySqlKeyRanges(connection, config.flavor()));
        try (Statement s = connection.createStatement()) {
            s.execute("SET SESSION time_zone = '+00:00'");
            s.execute("SET SESSION net_write_timeout = " + CHUNK_WRITE_TIMEOUT_SECONDS);
        } catch (SQLException e) {
            close();
            throw failure(e);
        }
    }

    @Override
    public void checkSnapshotPrerequisites(List<TableId> tables) {
        SnapshotPrerequisites.check(connection, config, tables);
    }

    @Override
    public MySqlPosition prepareStream(List<TableId> tables, boolean fullBeforeImages) {
        try {
            MySqlPrerequisites.check(connection, config.flavor());
            BinlogFilters.requireLogged(connection, config.flavor(), tables);
            config.foreignKeyCascades().check(connection, tables);
        } catch (SQLException e) {
            throw failure(e);
        }
        return currentPosition();
    }

    @Override
    public List<TableId> discoverTables(TableFilter filter) {
        List<TableId> tables = new ArrayList<>();
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES "
                        // system-versioned tables too, so that describing one refuses it instead of skipping it
                        + "WHERE TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED') AND TABLE_SCHEMA NOT IN "
                        + "('mysql', 'information_schema', 'performance_schema', 'sys') ORDER BY 1, 2")) {
            while (rs.next()) {
                TableId id = TableId.of(rs.getString(1), rs.getString(1), rs.getString(2));
                if (filter.matches(id)) {
                    tables.add(id);
                }
            }
        } catch (SQLException e) {
            throw failure(e);
        }
        return tables;
    }

    @Override
    public TableDescription describe(TableId table) {
        return table(table).description;
    }

    private MySqlTable table(TableId table) {
        try {
            return MySqlShapes.describe(connection, table.database(), table.table());
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override
    @Nullable
    public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after, int chunkSize) {
        return nextChunkEnd(table, keyColumns, after, chunkSize, null);
    }

    @Override
    @Nullable
    public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after, int chunkSize,
            @Nullable String rowFilter) {
        try {
            if (denseKeys.applies(table, keyColumns, rowFilter)) {
                return denseKeys.nextEnd(table, keyColumns.get(0), after, chunkSize);
            }
            return countedChunkEnd(table, keyColumns, after, chunkSize, rowFilter);
        } catch (SQLException e) {
            ChunkTables.failIfGone(table.table(), e);
            throw RowFilters.chunkFailure(connection, table.table(), rowFilter, e, this::failure);
        }
    }

    /** The key {@code chunkSize} rows (that {@code rowFilter} selects) after {@code after}, counted by the server. */
    @Nullable
    private Object[] countedChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            int chunkSize, @Nullable String rowFilter) throws SQLException {
        // described anew for each end: a key's character set converted since would be decoded with the old one
        MySqlTable described = table(table.table());
        // in the order the table's earlier ends were planned in (a key's collation changed since would not be)
        ChunkKeyChanges.requireSameOrder(MySqlKeyOrder.INSTANCE, table, described.description, keyColumns);
        String keys = keyColumns.stream().map(MySqlSql::quote).collect(Collectors.joining(", "));
        // read as the chunk's rows are (the driver reformats temporal text: a DATETIME(3) .055 came back as .550)
        String selected = keyColumns.stream().map(k -> SnapshotValues.select(described.column(k), MySqlSql.quote(k)))
                .collect(Collectors.joining(", "));
        String sql = "SELECT " + selected + " FROM " + MySqlSql.qualified(table.table())
                + ChunkReader.rangeWhere(keyColumns, after, null, rowFilter)
                + " ORDER BY " + keys + " LIMIT 1 OFFSET " + (chunkSize - 1);
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            MySqlSql.bind(s, 1, after);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                Object[] key = new Object[keyColumns.size()];
                for (int i = 0; i < key.length; i++) {
                    key[i] = SnapshotValues.decode(described.column(keyColumns.get(i)), rs, i + 1);
                }
                ChunkEnds.requireAfter(table, keyColumns, after, key);
                return key;
            }
        }
    }

    @Override
    public MySqlPosition readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, Consumer<ChangeEvent> out) {
        return chunks.read(table, keyColumns, after, upTo, null, out);
    }

    @Override
    public MySqlPosition readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, @Nullable String rowFilter, Consumer<ChangeEvent> out) {
        return chunks.read(table, keyColumns, after, upTo, rowFilter, out);
    }

    @Override
    @Nullable
    public String rowFilterProblem(TableDescription table, String rowFilter) {
        return RowFilters.problem(connection, RowFilters.probes("SELECT 1 FROM " + MySqlSql.qualified(table.table())
                + " WHERE ", rowFilter, " LIMIT 0"), this::failure);
    }

    /** The binlog's end now, with the GTIDs executed before it (see {@link BinlogPositions#current}). */
    @Override
    public MySqlPosition currentPosition() {
        return positions.current();
    }

    @Override
    public int[] placeKeys(TableId table, List<String> keyColumns, List<ValueType> keyTypes, List<String> keyCollations,
            List<Object[]> bounds, List<Object[]> keys) {
        try {
            return placement.place(connection, table, keyColumns, keyTypes, keyCollations, bounds, keys);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    private CdcException failure(SQLException e) {
        return MySqlConnections.failure(config, e);
    }

    /**
     * Safe to call from another thread while a read is in progress, to end it (a cancelled task's
     * worker may be blocked in one): the driver's {@code close()} would wait for that read's socket
     * lock, while {@code abort} has the server kill the connection (from a connection of its own) and
     * then closes it. The same for the catalogue connection of the chunks' binlog windows.
     */
    @Override
    public void close() {
        chunks.close();
        Disconnects.abort(connection);
    }
}
