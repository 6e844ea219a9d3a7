package io.rustcdc.flink.mysql;

import io.rustcdc.flink.mysql.types.MySqlColumn;
import io.rustcdc.flink.mysql.types.SnapshotValues;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.ChunkKeyChanges;
import io.rustcdc.flink.source.spi.JdbcTransactions;
import io.rustcdc.flink.source.spi.RowFilters;
import io.rustcdc.flink.source.spi.TableDescription;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.annotation.Nullable;

/**
 * Reads a session's snapshot chunks. Each chunk is read in its own {@code START TRANSACTION WITH
 * CONSISTENT SNAPSHOT}, whose binlog position is the chunk's mark: exactly the transactions before it
 * are in the chunk. MariaDB reports that position where other sessions may overwrite it, so it is
 * known only where two positions read around the snapshot's opening agree ({@link #readMariaDbChunk});
 * Oracle MySQL reports none. Otherwise a chunk is completed from the binlog up to the binlog's end
 * read after its snapshot, which is its mark ({@link #readChunkWithBackfill}). Each chunk's snapshot
 * takes the table's metadata lock as soon as it opens ({@link #lock}). Not thread-safe, but {@link
 * #close} may be called from any thread.
 */
final class ChunkReader {
    /**
     * MariaDB: how many times a chunk's snapshot is opened in search of one with no commit between the
     * positions that bound it, before the chunk is completed from the binlog ({@link #readMariaDbChunk}).
     */
    static final int EXACT_ATTEMPTS = 5;
    /**
     * A chunk with a row filter is read only in a snapshot whose binlog window changed none of its keys
     * (see {@link #read}): how many snapshots are opened in search of one before the source fails.
     */
    static final int FILTERED_ATTEMPTS = 50;

    private final MySqlSourceConfig config;
    private final Connection connection;
    private final BinlogPositions positions;
    /** Describes a table on the session's connection (inside a chunk's transaction, as it reads it). */
    private final Function<TableId, MySqlTable> describe;
    private final SourceInfo snapshotSource;
    /** The session's, which places a chunk's changed keys of text the server orders ({@link ChunkBackfill}). */
    private final MySqlKeyPlacement placement;
    /**
     * The catalogue connection of the chunks' binlog windows (outside any transaction), opened at the first
     * window and kept for the next ones; null before, and after a window failed on it.
     */
    @Nullable
    private volatile Connection windowConnection;
    /** The sockets of the windows' catalogue connection while it is opened, for {@link #close} to cut. */
    private final TrackedSocketFactory.Opening windowOpening = new TrackedSocketFactory.Opening();
    private volatile boolean closed;
    /** Tests only: runs on the reading thread right after a chunk's end position {@code H} was read. */
    @Nullable
    static volatile Runnable afterEndRead;
    /**
     * Oracle MySQL: a binlog position before which every transaction is in the GTIDs executed when
     * the last chunk was read, so in those of every later chunk; its backfill starts there instead
     * of at the start of the binlog file (which the server would read through). Null until then.
     */
    @Nullable private MySqlPosition backfillBound;

    ChunkReader(MySqlSourceConfig config, Connection connection, BinlogPositions positions,
            Function<TableId, MySqlTable> describe, MySqlKeyPlacement placement) {
        this.config = config;
        this.connection = connection;
        this.positions = positions;
        this.describe = describe;
        this.placement = placement;
        this.snapshotSource = SourceInfo.snapshot(config.flavor().sourceName(), null);
    }

    /**
     * Streams the rows of the key range ({@code after}, {@code upTo}] that {@code rowFilter} selects (null:
     * every row) to {@code out}; returns the chunk's mark. A chunk completed from a binlog window would
     * hold the rows the window left, and whether such a row satisfies the filter only the database can
     * say: so a filtered chunk is read only in a snapshot whose window changed none of its keys (its rows
     * are then the table's at the mark), opening it again otherwise, up to {@link #FILTERED_ATTEMPTS}
     * times. The window is the moment the snapshot takes to open, so writes to the chunk's keys rarely
     * fall into it.
     */
    MySqlPosition read(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, @Nullable String rowFilter, Consumer<ChangeEvent> out) {
        if (config.flavor() == ServerFlavor.MYSQL) {
            return readChunkWithBackfill(table, keyColumns, after, upTo, rowFilter, out);
        }
        return readMariaDbChunk(table, keyColumns, after, upTo, rowFilter, out);
    }

    /**
     * A chunk on MariaDB. The server's {@code binlog_snapshot_file} and {@code binlog_snapshot_position}
     * cannot be its mark: every {@code SHOW STATUS} (of any session, e.g. another chunk's reader or a
     * monitoring tool) writes them into one array shared by all sessions before it reads them out, under
     * a lock that the others share, so a session may read another's values (seen: a chunk marked after
     * a transaction its rows did not show, which the handoff then dropped). Whatever that array holds is
     * a position some session's commit or snapshot had earlier, so read before the snapshot is opened it
     * is a position {@code L} every transaction before which the snapshot sees; the binlog's end {@code
     * H} read after it is at or after every transaction it sees. When {@code L} = {@code H} that is the
     * snapshot's position, and the rows stream out as they are read; after {@link #EXACT_ATTEMPTS}
     * snapshots with commits in between, the chunk is completed from the binlog from {@code L} to
     * {@code H} as on Oracle MySQL ({@link ChunkBackfill#applyFrom}) and marked {@code H}: the window
     * is read first, while the snapshot stays open ({@link #window}), and the rows stream through what
     * it changed ({@link #readThrough}), so only the keys it changed are held.
     */
    private MySqlPosition readMariaDbChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, @Nullable String rowFilter, Consumer<ChangeEvent> out) {
        TableId tableId = table.table();
        for (int attempt = 1; ; attempt++) {
            boolean mayRetry = attempt < EXACT_ATTEMPTS;
            int lastAttempt = rowFilter == null ? EXACT_ATTEMPTS + 2 : FILTERED_ATTEMPTS;
            MySqlPosition mark;
            try (Statement s = connection.createStatement()) {
                s.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
                // outside a transaction: a commit position from before the snapshot
                MySqlPosition low = positions.snapshotPosition();
                s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
                mark = committed(s, () -> {
                    lock(s, tableId);
                    MySqlPosition high = endRead();
                    if (!low.equals(high) && mayRetry) {
                        return null; // commits in between: open the snapshot again
                    }
                    // described inside the chunk's transaction: the rows carry the shape they were read with
                    MySqlTable described = described(table, keyColumns, after, upTo);
                    if (low.equals(high)) {
                        readRows(described, keyColumns, after, upTo, rowFilter, out); // exact: the rows stream out
                        return high;
                    }
                    ChunkBackfill window = window(described, keyColumns, after, upTo, w -> w.applyFrom(low, high));
                    if (window == null || (rowFilter != null && window.touched())) {
                        return null;
                    }
                    readThrough(window, described, keyColumns, after, upTo, rowFilter, out);
                    return high;
                });
                if (mark != null) {
                    // with its GTIDs, the mark still orders against the stream after a move to a replica
                    return positions.withGtids(mark);
                }
            } catch (SQLException e) {
                throw RowFilters.chunkFailure(connection, tableId, rowFilter, e, f -> MySqlConnections.failure(config, f));
            }
            if (attempt >= lastAttempt) {
                throw rowFilter == null ? schemaChanged(tableId, 3) : filteredNotExact(tableId, attempt);
            }
        }
    }

    /**
     * Takes the table's metadata lock in the chunk's snapshot, just opened, for the rest of its transaction: a
     * schema change of the table then either committed before the end position read next (and lies in the
     * binlog window, which reads the chunk again) or waits for the chunk's commit. Without it one that
     * committed after that position and before the chunk's rows were selected would go unseen: a column
     * renamed in place, say, would have its values read under the other name.
     */
    private void lock(Statement s, TableId tableId) throws SQLException {
        try {
            // not from MariaDB's query cache (when a server has it on), which would answer without opening the table
            String noCache = config.flavor() == ServerFlavor.MARIADB ? "SQL_NO_CACHE " : "";
            s.executeQuery("SELECT " + noCache + "1 FROM " + MySqlSql.qualified(tableId) + " LIMIT 0").close();
        } catch (SQLException e) {
            ChunkTables.failIfGone(tableId, e);
            throw e;
        }
    }

    /**
     * The table as a chunk's open snapshot reads it, its lock held. A chunk with a bound must read its key in the order
     * of {@code table}, as the source described it just before, which it checks is the order the chunk was planned in
     * ({@link io.rustcdc.flink.source.split.ChunkKey#requireOrderOf}): a key column's collation, character set or type
     * changed in between would make the chunk read rows of another range.
     */
    private MySqlTable described(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo) {
        MySqlTable described = describe.apply(table.table());
        if (after != null || upTo != null) {
            ChunkKeyChanges.requireSameOrder(MySqlKeyOrder.INSTANCE, table, described.description, keyColumns);
        }
        return described;
    }

    /** The binlog's end position, read in a chunk's open snapshot. */
    private MySqlPosition endRead() throws SQLException {
        MySqlPosition high = positions.binlogEnd();
        Runnable hook = afterEndRead;
        if (hook != null) {
            hook.run();
        }
        return high;
    }

    /**
     * A chunk's binlog window, read while the chunk's snapshot stays open, on the catalogue connection of
     * the windows: {@code apply} reads it into the backfill (which holds only the keys it changed) and says
     * whether it is complete; null when it is not (the table's schema changed in the window).
     */
    @Nullable
    private ChunkBackfill window(MySqlTable described, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, Predicate<ChunkBackfill> apply) throws SQLException {
        Connection catalogue = windowConnection;
        if (catalogue == null) {
            if (!closed) {
                catalogue = MySqlConnections.connect(config, windowOpening); // close() may cut it while it opens
                windowConnection = catalogue; // so that close() ends a read blocked on it too
            }
            if (closed) {
                close();
                throw new CdcException(CdcException.Kind.CONNECTION, "The session closed while a chunk's binlog window "
                        + "opened its catalogue connection");
            }
        }
        try {
            ChunkBackfill window = new ChunkBackfill(config, catalogue, placement, positions.charsets(),
                    described.description, keyColumns, after, upTo, List.of());
            return apply.test(window) ? window : null;
        } catch (RuntimeException e) {
            windowConnection = null; // the next window opens another
            Disconnects.abort(catalogue);
            throw e;
        }
    }

    /**
     * The chunk's rows, read in the open snapshot, streamed out through what {@code window} changed (a
     * row's last change, or nothing when it removed the row), then the rows the window added: no map
     * of every row of the chunk.
     */
    private void readThrough(ChunkBackfill window, MySqlTable described, List<String> keyColumns,
            @Nullable Object[] after, @Nullable Object[] upTo, @Nullable String rowFilter, Consumer<ChangeEvent> out)
            throws SQLException {
        TableDescription d = described.description;
        readRows(described, keyColumns, after, upTo, rowFilter,
                e -> window.merge(e.after(), row -> out.accept(read(d, row))));
        window.rows().forEach(row -> out.accept(read(d, row)));
    }

    /**
     * A chunk on Oracle MySQL, exact without locks (docs/mysql.md, "Snapshot and handoff"): {@code L}
     * = {@code @@GLOBAL.gtid_executed} read before the consistent snapshot is opened (a GTID is added
     * there only after its transaction committed in the engine, so the snapshot sees every
     * transaction of {@code L}; in binlog order only with {@code binlog_order_commits = ON}, checked with it,
     * else a later change of a row may be in {@code L} and an earlier one not); {@code H} = the binlog's
     * end read after the snapshot was opened (a transaction the snapshot sees was written to the binlog
     * before it committed, so it lies before
     * {@code H}). The binlog from {@code L} (every transaction not in it, in binlog order) up to {@code
     * H} is fixed once {@code H} is read: it is read first, while the snapshot stays open ({@link
     * #window}), then the chunk's rows stream out through it ({@link #readThrough}), full row images
     * setting or removing a row: for each row (told apart by the primary key, or the chunk key in a table
     * without one) the last change before {@code H} decides, and a row without one is as the snapshot read
     * it, as no transaction after {@code L} touched it. The rows are
     * then the table's at {@code H}, which is the chunk's mark. A schema change of the table in that
     * window reads the chunk again.
     */
    private MySqlPosition readChunkWithBackfill(TableDescription table, List<String> keyColumns,
            @Nullable Object[] after, @Nullable Object[] upTo, @Nullable String rowFilter, Consumer<ChangeEvent> out) {
        TableId tableId = table.table();
        int schemaChanges = 0;
        for (int attempt = 1; ; attempt++) {
            OracleRead read;
            try (Statement s = connection.createStatement()) {
                MySqlGtidSet low;
                try (ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_executed, @@GLOBAL.binlog_order_commits")) {
                    rs.next();
                    low = MySqlGtidSet.parse(rs.getString(1));
                    if (!rs.getBoolean(2)) {
                        throw SnapshotPrerequisites.unorderedCommits(config); // L may lack a row's earlier change
                    }
                }
                s.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
                s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
                read = committed(s, () -> {
                    lock(s, tableId);
                    MySqlPosition high = endRead(); // after the snapshot was opened
                    MySqlTable described = described(table, keyColumns, after, upTo);
                    ChunkBackfill window = window(described, keyColumns, after, upTo, w -> {
                        boolean complete = w.apply(low, high, backfillBound);
                        if (w.nextBound() != null) {
                            backfillBound = w.nextBound();
                        }
                        return complete;
                    });
                    if (window == null || (rowFilter != null && window.touched())) {
                        return new OracleRead(null, window == null);
                    }
                    readThrough(window, described, keyColumns, after, upTo, rowFilter, out);
                    // with its GTIDs, the mark still orders against the stream after a move to a replica
                    return new OracleRead(window.high(high), false);
                });
            } catch (SQLException e) {
                throw RowFilters.chunkFailure(connection, tableId, rowFilter, e, f -> MySqlConnections.failure(config, f));
            }
            if (read.mark() != null) {
                return read.mark();
            }
            if (read.schemaChanged() && ++schemaChanges == 3) {
                throw schemaChanged(tableId, schemaChanges);
            }
            if (!read.schemaChanged() && attempt >= FILTERED_ATTEMPTS) {
                throw filteredNotExact(tableId, attempt);
            }
        }
    }

    /** An Oracle MySQL chunk's read: its mark once its rows were read, else whether its window changed its schema. */
    private record OracleRead(@Nullable MySqlPosition mark, boolean schemaChanged) {}

    /** {@code read} in the transaction open on {@code s}, then its commit; a rollback when it fails. */
    private static <T> T committed(Statement s, JdbcTransactions.Work<T> read) throws SQLException {
        return JdbcTransactions.committed(read, () -> s.execute("COMMIT"), () -> s.execute("ROLLBACK"));
    }

    private ChangeEvent read(TableDescription d, Row row) {
        return ChangeEvent.builder(Op.READ, d.table(), snapshotSource).after(row).shape(d.shape()).build();
    }

    private static CdcException schemaChanged(TableId tableId, int reads) {
        return new CdcException(CdcException.Kind.STATE, "Table " + tableId.database() + "." + tableId.table()
                + " changed its schema while each of " + reads + " reads of one of its chunks was completed "
                + "from the binlog; the source fails so that it restarts and reads the chunk again.");
    }

    private static CdcException filteredNotExact(TableId tableId, int reads) {
        return new CdcException(CdcException.Kind.STATE, "A chunk of " + tableId.database() + "." + tableId.table()
                + " with a row filter was read " + reads + " times, and each time a change of its keys (or of the "
                + "table's schema) committed while its snapshot opened, so its rows at the snapshot's position are not "
                + "known; the source fails so that it restarts and reads the chunk again. Lower the writes to the "
                + "table's keys, or snapshot it without a row filter.");
    }

    private void readRows(MySqlTable table, List<String> keyColumns, @Nullable Object[] after, @Nullable Object[] upTo,
            @Nullable String rowFilter, Consumer<ChangeEvent> out) throws SQLException {
        List<MySqlColumn> columns = table.columns;
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < columns.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append(SnapshotValues.select(columns.get(i), MySqlSql.quote(columns.get(i).name())));
        }
        sql.append(" FROM ").append(MySqlSql.qualified(table.description.table()))
                .append(rangeWhere(keyColumns, after, upTo, rowFilter));
        try (PreparedStatement s = connection.prepareStatement(sql.toString(), ResultSet.TYPE_FORWARD_ONLY,
                ResultSet.CONCUR_READ_ONLY)) {
            s.setFetchSize(1000);
            int next = MySqlSql.bind(s, 1, after);
            MySqlSql.bind(s, next, upTo);
            try (ResultSet rs = s.executeQuery()) {
                TableDescription d = table.description;
                while (rs.next()) {
                    Row.Builder row = Row.builder(d.rowType());
                    for (int i = 0; i < columns.size(); i++) {
                        row.set(i, SnapshotValues.decode(columns.get(i), rs, i + 1));
                    }
                    out.accept(ChangeEvent.builder(Op.READ, d.table(), snapshotSource).after(row.build())
                            .shape(d.shape()).build());
                }
            }
        }
    }

    /** The WHERE clause of a chunk's rows (key placeholders: after's, then upTo's), or empty. */
    static String rangeWhere(List<String> keyColumns, @Nullable Object[] after, @Nullable Object[] upTo,
            @Nullable String rowFilter) {
        StringBuilder where = new StringBuilder();
        if (after != null) {
            where.append(MySqlSql.tuple(keyColumns)).append(" > ").append(MySqlSql.placeholders(keyColumns));
        }
        if (upTo != null) {
            where.append(after != null ? " AND " : "").append(MySqlSql.tuple(keyColumns)).append(" <= ")
                    .append(MySqlSql.placeholders(keyColumns));
        }
        return RowFilters.where(RowFilters.and(where.toString(), rowFilter));
    }

    /** Closes the windows' catalogue connection, ending a read blocked on it. Any thread. */
    void close() {
        closed = true;
        windowOpening.cut();
        Connection window = windowConnection;
        windowConnection = null;
        if (window != null) {
            Disconnects.abort(window);
        }
    }
}
