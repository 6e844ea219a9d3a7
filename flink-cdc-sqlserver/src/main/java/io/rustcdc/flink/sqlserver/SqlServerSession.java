package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.JdbcTransactions;
import io.rustcdc.flink.source.spi.RowFilters;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.sqlserver.types.SqlServerColumn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import javax.annotation.Nullable;

/**
 * One ordinary connection for the catalogue and snapshot chunks. A chunk is read in a SERIALIZABLE
 * transaction, whose key-range locks keep every writer of the chunk's range out until it ends; the
 * log's end LSN read in it, after the rows, is the chunk's mark: every change of the range committed
 * before the read has a commit LSN at or below it, every later one above it (docs/sqlserver.md). The
 * mark also holds the table's object_id, read in the same statement: the table the rows came from, which
 * its locks keep from being dropped or renamed until the transaction ends. The rows of a bounded chunk
 * are held until the transaction ends (at most about a chunk), so that writers wait no longer than the
 * read ({@link #readChunk}). Not thread-safe.
 */
final class SqlServerSession implements CatalogSession<SqlServerPosition, SqlServerChunkMark> {
    /** This session was chosen as a deadlock victim: the chunk is read again. */
    private static final int DEADLOCK_VICTIM = 1205;
    /** "Invalid object name": the table is gone (dropped or renamed since the chunk was planned). */
    private static final int INVALID_OBJECT = 208;
    private static final int CHUNK_ATTEMPTS = 3;

    private final SqlServerSourceConfig config;
    private final Connection connection;
    private final SourceInfo snapshotSource = SourceInfo.snapshot(SqlServerConnector.NAME, null);
    private final Map<TableId, SqlServerTable> keyTables = new HashMap<>();

    SqlServerSession(SqlServerSourceConfig config) {
        this.config = config;
        this.connection = SqlServerConnections.connect(config);
    }

    @Override
    public void checkSnapshotPrerequisites(List<TableId> tables) {
        for (TableId table : tables) {
            try (Statement s = connection.createStatement()) {
                s.executeQuery("SELECT TOP (0) * FROM " + SqlServerSql.qualified(table)).close();
            } catch (SQLException e) {
                if (e.getErrorCode() != SqlServerPrerequisites.PERMISSION_DENIED) {
                    throw failure(e); // not a missing grant (a lost connection)
                }
                String user = config.connection().username();
                throw new CdcException(CdcException.Kind.PREREQUISITE, "User '" + user + "' cannot read "
                        + SqlServerCatalog.name(table) + " for the snapshot (" + e.getMessage() + "): GRANT SELECT ON "
                        + SqlServerSql.qualified(table) + " TO " + SqlServerSql.quote(user) + ";");
            }
        }
    }

    @Override
    public SqlServerPosition prepareStream(List<TableId> tables, boolean fullBeforeImages) {
        try {
            SqlServerPrerequisites.checkDatabase(connection, config);
            SqlServerPrerequisites.checkTables(connection, config, tables,
                    SqlServerCatalog.instances(connection, config.database(), config.cdcSchema()));
        } catch (SQLException e) {
            throw failure(e);
        }
        return currentPosition(); // change tables hold whole old rows of updates and deletes: nothing to set
    }

    @Override
    public List<TableId> discoverTables(TableFilter filter) {
        try {
            return SqlServerCatalog.tables(connection, config.database(), config.cdcSchema()).stream()
                    .filter(filter::matches).collect(Collectors.toList());
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override
    public TableDescription describe(TableId table) {
        return table(table).description;
    }

    private SqlServerTable table(TableId table) {
        try {
            return SqlServerCatalog.describe(connection, table);
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override
    @Nullable
    public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            int chunkSize) {
        return nextChunkEnd(table, keyColumns, after, chunkSize, null);
    }

    @Override
    @Nullable
    public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            int chunkSize, @Nullable String rowFilter) {
        SqlServerTable described = keyTables.computeIfAbsent(table.table(), this::table);
        List<SqlServerColumn> keys = described.columns(keyColumns);
        String sql = nextChunkEndSql(table.table(), keys, after != null, chunkSize, rowFilter);
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            if (after != null) {
                SqlServerSql.bindTuple(s, 1, keys, after, false);
            }
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                Object[] key = new Object[keys.size()];
                for (int i = 0; i < key.length; i++) {
                    key[i] = keys.get(i).read(rs, i + 1);
                }
                return key;
            }
        } catch (SQLException e) {
            throw chunkFailure(table.table(), rowFilter, e);
        }
    }

    /** The query of {@link #nextChunkEnd}: the key {@code chunkSize} rows (that {@code rowFilter} selects) on. */
    static String nextChunkEndSql(TableId table, List<SqlServerColumn> keys, boolean after, int chunkSize,
            @Nullable String rowFilter) {
        return "SELECT " + keys.stream().map(k -> k.select(SqlServerSql.quote(k.name())))
                .collect(Collectors.joining(", ")) + " FROM " + SqlServerSql.qualified(table)
                + RowFilters.where(RowFilters.and(after ? SqlServerSql.after(keys) : "", rowFilter))
                + " ORDER BY " + orderBy(keys) + " OFFSET " + (chunkSize - 1) + " ROWS FETCH NEXT 1 ROWS ONLY";
    }

    /** The WHERE clause of a chunk's rows (key placeholders: after's, then upTo's), or empty. */
    static String chunkWhere(List<SqlServerColumn> keys, boolean after, boolean upTo, @Nullable String rowFilter) {
        String range = (after ? SqlServerSql.after(keys) : "") + (after && upTo ? " AND " : "")
                + (upTo ? SqlServerSql.atMost(keys) : "");
        return RowFilters.where(RowFilters.and(range, rowFilter));
    }

    @Override
    @Nullable
    public String rowFilterProblem(TableDescription table, String rowFilter) {
        return RowFilters.problem(connection, RowFilters.probes("SELECT TOP (0) 1 FROM "
                + SqlServerSql.qualified(table.table()) + " WHERE ", rowFilter, ""), this::failure);
    }

    private static String orderBy(List<SqlServerColumn> keys) {
        return keys.stream().map(k -> SqlServerSql.quote(k.name())).collect(Collectors.joining(", "));
    }

    /**
     * A bounded chunk's rows are held until its transaction ends (at most about a chunk), so that a
     * backpressured output never keeps writers waiting on its locks, and a deadlock victim's read is
     * simply repeated. A whole table read as one chunk (its key is not ordered here) streams its rows
     * to {@code out} as they arrive instead, in bounded memory, holding its locks until the last one.
     */
    @Override
    public SqlServerChunkMark readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, Consumer<ChangeEvent> out) {
        return readChunk(table, keyColumns, after, upTo, null, out);
    }

    /**
     * With a row filter, the chunk's SERIALIZABLE read keeps the rows the filter selects in its range as
     * they are until the log's end is read, so the mark is exact for them as without one.
     *
     * <p>The table is described just before the chunk's transaction; a table replaced in between (its
     * object_id in the mark is not the described one) had its rows decoded with the columns of the table
     * before it, and a bounded chunk is read again with the new table's. The framework then finds the
     * table's chunks coming from two tables ({@link SqlServerConnector#tableIdentity}).
     *
     * @throws CdcException of kind STATE when the table is gone (dropped or renamed since it was planned)
     * @throws io.rustcdc.flink.source.spi.RowFilterFailure when {@code rowFilter} fails on the values of some
     *     of the chunk's rows (not retried: the same rows fail again)
     */
    @Override
    public SqlServerChunkMark readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, @Nullable String rowFilter, Consumer<ChangeEvent> out) {
        boolean wholeTable = after == null && upTo == null;
        for (int attempt = 1; ; attempt++) {
            SqlServerTable described = chunkTable(table.table());
            TableDescription d = described.description;
            Consumer<Row> emit = row -> out.accept(ChangeEvent.builder(Op.READ, d.table(), snapshotSource).after(row)
                    .shape(d.shape()).build());
            List<Row> held = new ArrayList<>();
            try {
                SqlServerChunkMark mark = readLocked(described, keyColumns, after, upTo, rowFilter,
                        wholeTable ? emit : held::add);
                if (mark.objectId() != described.objectId) {
                    if (wholeTable || attempt == CHUNK_ATTEMPTS) {
                        throw SqlServerChunkTables.replacedWhileRead(table.table(), described.objectId, mark);
                    }
                    continue; // described, then replaced: read again with the new table's columns
                }
                held.forEach(emit);
                return mark;
            } catch (SQLException e) {
                if (e.getErrorCode() == INVALID_OBJECT) {
                    throw SqlServerChunkTables.gone(table.table(), e.getMessage(), e);
                }
                if (wholeTable || e.getErrorCode() != DEADLOCK_VICTIM || attempt == CHUNK_ATTEMPTS) {
                    throw chunkFailure(table.table(), rowFilter, e);
                }
            }
        }
    }

    /** The table described for a chunk: it was there when its chunks were planned, so one not there now is gone. */
    private SqlServerTable chunkTable(TableId table) {
        SqlServerTable described;
        try {
            described = SqlServerCatalog.describeIfExists(connection, table);
        } catch (SQLException e) {
            throw failure(e);
        }
        if (described == null) {
            throw SqlServerChunkTables.gone(table, "no table of that name now", null);
        }
        return described;
    }

    /** The chunk's rows to {@code rows} and its mark, read in one SERIALIZABLE transaction. */
    private SqlServerChunkMark readLocked(SqlServerTable table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, @Nullable String rowFilter, Consumer<Row> rows) throws SQLException {
        List<SqlServerColumn> keys = table.columns(keyColumns);
        StringBuilder sql = new StringBuilder("SELECT ").append(table.selectList()).append(" FROM ")
                .append(SqlServerSql.qualified(table.description.table()))
                .append(chunkWhere(keys, after != null, upTo != null, rowFilter));
        return JdbcTransactions.inTransaction(connection, Connection.TRANSACTION_SERIALIZABLE, false, () -> {
            try (PreparedStatement s = connection.prepareStatement(sql.toString())) {
                int next = after == null ? 1 : SqlServerSql.bindTuple(s, 1, keys, after, false);
                if (upTo != null) {
                    SqlServerSql.bindTuple(s, next, keys, upTo, true);
                }
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        Row.Builder row = Row.builder(table.description.rowType());
                        for (int i = 0; i < table.columns.size(); i++) {
                            row.set(i, decode(table, i, rs, i + 1));
                        }
                        rows.accept(row.build());
                    }
                }
            }
            return chunkMark(connection, table.description.table()); // while the range locks are held
        });
    }

    /** Column {@code i} of {@code table}, read from {@code rs} at {@code index}; a value that does not fit fails naming both. */
    static Object decode(SqlServerTable table, int i, ResultSet rs, int index) throws SQLException {
        SqlServerColumn column = table.columns.get(i);
        try {
            return column.read(rs, index);
        } catch (IllegalArgumentException | ClassCastException e) {
            throw new CdcException(CdcException.Kind.DECODE, "Table " + SqlServerCatalog.name(table.description.table())
                    + " column " + column + ": " + e.getMessage(), e);
        }
    }

    /** The LSN of the last record of the database's log ({@code sys.dm_db_log_stats}). */
    static Lsn logEnd(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT log_end_lsn FROM sys.dm_db_log_stats(DB_ID())")) {
            rs.next();
            return logEnd(rs.getString(1));
        }
    }

    /**
     * A chunk's mark: the log's end and {@code table}'s object_id, in one statement (no round trip more
     * than the log's end alone). Read inside the chunk's transaction, after its rows: the locks they took
     * keep the table from being dropped or renamed (both need a schema modification lock) until it ends,
     * so the name still denotes the table the rows came from.
     */
    static SqlServerChunkMark chunkMark(Connection c, TableId table) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "SELECT log_end_lsn, OBJECT_ID(?, 'U') FROM sys.dm_db_log_stats(DB_ID())")) {
            s.setString(1, SqlServerSql.qualified(table));
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                Lsn end = logEnd(rs.getString(1));
                int objectId = rs.getInt(2);
                if (rs.wasNull()) {
                    throw SqlServerChunkTables.gone(table, "OBJECT_ID returned NULL after the chunk's read", null);
                }
                return SqlServerChunkMark.of(end, objectId);
            }
        }
    }

    private static Lsn logEnd(String text) {
        try {
            return Lsn.parse(text);
        } catch (IllegalArgumentException e) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "sys.dm_db_log_stats returned log_end_lsn '"
                    + text + "', which is not an LSN this connector reads (00000025:00000180:0001)", e);
        }
    }

    /** After every commit now in the log: a later commit's LSN is above the log's end read now. */
    @Override
    public SqlServerPosition currentPosition() {
        try {
            return SqlServerPosition.afterCommit(logEnd(connection));
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    /**
     * A chunk's query over {@code rowFilter} failed with {@code e}: the filter's condition failing on some
     * rows' values ({@link SqlServerRowFilterErrors}) while the connection still answers is a {@link
     * io.rustcdc.flink.source.spi.RowFilterFailure}, which the framework ends the snapshot or the job with
     * (by where the filter came from) instead of retrying it; anything else is a failure as ever.
     */
    private RuntimeException chunkFailure(TableId table, @Nullable String rowFilter, SQLException e) {
        return RowFilters.chunkFailure(connection, table, rowFilter, e, SqlServerRowFilterErrors::conditionFailed,
                this::failure);
    }

    private CdcException failure(SQLException e) {
        return SqlServerConnections.failure(config, e);
    }

    @Override
    public void close() {
        SqlServerConnections.close(connection);
    }
}
