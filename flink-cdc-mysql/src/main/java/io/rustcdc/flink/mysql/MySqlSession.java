package io.rustcdc.flink.mysql;

import io.rustcdc.flink.mysql.types.MySqlColumn;
import io.rustcdc.flink.mysql.types.SnapshotValues;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.JdbcTransactions;
import io.rustcdc.flink.source.spi.TableDescription;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import javax.annotation.Nullable;

/**
 * One ordinary connection for the catalogue and snapshot chunks, in a UTC session so that a
 * TIMESTAMP reads as the instant the binlog holds. Each chunk is read in its own {@code START
 * TRANSACTION WITH CONSISTENT SNAPSHOT}, whose binlog position is the chunk's mark: exactly the
 * transactions before it are in the chunk. MariaDB reports that position where other sessions may
 * overwrite it, so it is known only where two positions read around the snapshot's opening agree
 * ({@link #readMariaDbChunk}); Oracle MySQL reports none. Otherwise a chunk is completed from the
 * binlog up to the binlog's end read after its snapshot, which is its mark ({@link
 * #readChunkWithBackfill}). Not thread-safe.
 */
final class MySqlSession implements CatalogSession<MySqlPosition, MySqlPosition> {
    /** ER_DBACCESS_DENIED_ERROR, ER_TABLEACCESS_DENIED_ERROR, ER_COLUMNACCESS_DENIED_ERROR. */
    private static final Set<Integer> ACCESS_DENIED = Set.of(1044, 1142, 1143);
    /**
     * Seconds the server may wait to send a chunk's rows: the reader streams them to Flink's output,
     * so a backpressured job stops reading the result set, and the server's default (60 s) would then
     * abort the chunk's read. 600 s is what MySQL Connector/J allows a streamed result by default.
     */
    static final int CHUNK_WRITE_TIMEOUT_SECONDS = 600;
    /**
     * MariaDB: how many times a chunk's snapshot is opened in search of one with no commit between the
     * positions that bound it, before the chunk is completed from the binlog ({@link #readMariaDbChunk}).
     */
    static final int EXACT_ATTEMPTS = 5;

    private final MySqlSourceConfig config;
    private final Connection connection;
    /** The catalogue connection of a MariaDB chunk's binlog window while it is read, else null. */
    @Nullable
    private volatile Connection windowConnection;
    private final SourceInfo snapshotSource;
    /** Tables as described for their chunk boundaries, which are found many times per table. */
    private final Map<TableId, MySqlTable> keyTables = new HashMap<>();
    /**
     * Oracle MySQL: a binlog position before which every transaction is in the GTIDs executed when
     * the last chunk was read, so in those of every later chunk; its backfill starts there instead
     * of at the start of the binlog file (which the server would read through). Null until then.
     */
    @Nullable private MySqlPosition backfillBound;
    /** The server's character sets by collation id, for backfills; read once. */
    @Nullable private Map<Integer, String> charsets;

    MySqlSession(MySqlSourceConfig config) {
        this.config = config;
        this.connection = MySqlConnections.connect(config);
        this.snapshotSource = SourceInfo.snapshot(config.flavor().sourceName(), null);
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
        if (config.flavor() == ServerFlavor.MYSQL && !tables.isEmpty()) {
            requireGtidMode();
        }
        for (TableId table : tables) {
            try (Statement s = connection.createStatement()) {
                s.executeQuery("SELECT 1 FROM " + MySqlSql.qualified(table) + " LIMIT 0").close();
            } catch (SQLException e) {
                if (!ACCESS_DENIED.contains(e.getErrorCode())) {
                    throw failure(e); // not a missing grant (a lost connection, a user's query limit)
                }
                throw new CdcException(CdcException.Kind.PREREQUISITE, "User '" + config.username() + "' cannot read "
                        + table.database() + "." + table.table() + " for the snapshot (" + e.getMessage() + "): GRANT "
                        + "SELECT ON " + MySqlSql.qualified(table) + " TO '" + config.username() + "';");
            }
            requireInnoDb(table);
        }
    }

    /**
     * Oracle MySQL reports no binlog position of a consistent snapshot: a chunk is made exact by a
     * backfill from the GTIDs executed before its snapshot ({@link #readChunkWithBackfill}), so
     * snapshots need GTIDs.
     */
    private void requireGtidMode() {
        String mode;
        try (Statement s = connection.createStatement()) {
            MySqlPrerequisites.requireFlavor(connection, config.flavor()); // a MariaDB server has no gtid_mode
            ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_mode");
            mode = rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw failure(e);
        }
        if (!"ON".equalsIgnoreCase(mode)) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "The Oracle MySQL server at " + config.hostname()
                    + ":" + config.port() + " has gtid_mode = " + mode + ": a snapshot on Oracle MySQL needs GTIDs "
                    + "(each chunk is completed from the binlog after the GTIDs executed before its snapshot, since "
                    + "MySQL reports no binlog position of a consistent snapshot). Set gtid_mode = ON and "
                    + "enforce_gtid_consistency = ON (SET PERSIST enforce_gtid_consistency = ON; then SET PERSIST "
                    + "gtid_mode step by step: OFF_PERMISSIVE, ON_PERMISSIVE, ON), or start the source without a "
                    + "snapshot (startup mode 'latest', 'committed' or a binlog position).");
        }
    }

    /**
     * A chunk is exact only in a consistent snapshot, which only InnoDB gives: a MyISAM or Aria table
     * read in one shows writes made after the chunk's mark, so the handoff would drop or repeat them.
     */
    private void requireInnoDb(TableId table) {
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
            s.setString(1, table.database());
            s.setString(2, table.table());
            try (ResultSet rs = s.executeQuery()) {
                String engine = rs.next() ? rs.getString(1) : null;
                if (engine != null && !"InnoDB".equalsIgnoreCase(engine)) {
                    throw new CdcException(CdcException.Kind.PREREQUISITE, "Table " + table.database() + "."
                            + table.table() + " uses the " + engine + " engine, which has no consistent snapshot: a "
                            + "chunk read while it is written would not match its binlog position, and the "
                            + "snapshot-to-stream handoff would drop or repeat changes. Convert it (ALTER TABLE "
                            + MySqlSql.qualified(table) + " ENGINE = InnoDB), exclude it, or start the source without "
                            + "a snapshot (startup mode 'latest').");
                }
            }
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override
    public MySqlPosition prepareStream(List<TableId> tables, boolean fullBeforeImages) {
        try {
            MySqlPrerequisites.check(connection, config.flavor());
            BinlogFilters.requireLogged(connection, tables);
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
        MySqlTable described = keyTables.computeIfAbsent(table.table(), this::table);
        String keys = keyColumns.stream().map(MySqlSql::quote).collect(Collectors.joining(", "));
        // read as the chunk's rows are (the driver reformats temporal text: a DATETIME(3) .055 came back as .550)
        String selected = keyColumns.stream().map(k -> SnapshotValues.select(described.column(k), MySqlSql.quote(k)))
                .collect(Collectors.joining(", "));
        String sql = "SELECT " + selected + " FROM " + MySqlSql.qualified(table.table())
                + (after == null ? "" : " WHERE " + MySqlSql.tuple(keyColumns) + " > " + MySqlSql.placeholders(keyColumns))
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
                return key;
            }
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    @Override
    public MySqlPosition readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, Consumer<ChangeEvent> out) {
        if (config.flavor() == ServerFlavor.MYSQL) {
            return readChunkWithBackfill(table.table(), keyColumns, after, upTo, out);
        }
        return readMariaDbChunk(table.table(), keyColumns, after, upTo, out);
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
     * is read first, while the snapshot stays open, and the rows stream through what it changed
     * ({@link #readThroughWindow}), so only the keys it changed are held.
     */
    private MySqlPosition readMariaDbChunk(TableId tableId, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, Consumer<ChangeEvent> out) {
        for (int attempt = 1; ; attempt++) {
            boolean mayRetry = attempt < EXACT_ATTEMPTS;
            MySqlPosition mark;
            try (Statement s = connection.createStatement()) {
                s.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
                MySqlPosition low = snapshotPosition(); // outside a transaction: a commit position from before the snapshot
                s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
                mark = committed(s, () -> {
                    MySqlPosition high = masterStatus();
                    if (!low.equals(high) && mayRetry) {
                        return null; // commits in between: open the snapshot again
                    }
                    // described inside the chunk's transaction: the rows carry the shape they were read with
                    MySqlTable described = table(tableId);
                    if (low.equals(high)) {
                        readRows(described, keyColumns, after, upTo, out); // exact: the rows stream out
                        return high;
                    }
                    return readThroughWindow(described, keyColumns, after, upTo, low, high, out) ? high : null;
                });
                if (mark != null) {
                    // with its GTIDs, the mark still orders against the stream after a move to a replica
                    return withGtids(mark);
                }
            } catch (SQLException e) {
                throw failure(e);
            }
            if (attempt == EXACT_ATTEMPTS + 2) {
                throw schemaChanged(tableId, 3);
            }
        }
    }

    /**
     * The chunk's rows, read in the open snapshot, completed by the binlog from {@code low} to {@code
     * high} (read first, while the snapshot stays open, on a connection of its own: only the keys it
     * changed are held), streamed out as they are read; false when the table's schema changed in that
     * window (the chunk must be read again).
     */
    private boolean readThroughWindow(MySqlTable described, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, MySqlPosition low, MySqlPosition high, Consumer<ChangeEvent> out)
            throws SQLException {
        ChunkBackfill window;
        try (Connection catalogue = MySqlConnections.connect(config)) {
            windowConnection = catalogue; // so that close() ends a read blocked on it too
            window = new ChunkBackfill(config, catalogue, charsets(), described.description, keyColumns, after, upTo,
                    List.of());
            if (!window.applyFrom(low, high)) {
                return false;
            }
        } finally {
            windowConnection = null;
        }
        TableDescription d = described.description;
        readRows(described, keyColumns, after, upTo, e -> window.merge(e.after(), row -> out.accept(read(d, row))));
        window.rows().forEach(row -> out.accept(read(d, row)));
        return true;
    }

    /**
     * A chunk on Oracle MySQL, exact without locks (docs/mysql.md, "Snapshot and handoff"): {@code L}
     * = {@code @@GLOBAL.gtid_executed} read before the consistent snapshot is opened (a GTID is added
     * there only after its transaction committed in the engine, so the snapshot sees every
     * transaction of {@code L}); the chunk's rows read in the snapshot; {@code H} = the binlog's end
     * read after the snapshot was opened (a transaction the snapshot sees was written to the binlog
     * before it committed, so it lies before {@code H}). The binlog from {@code L} (every transaction
     * not in it, in binlog order) up to {@code H} is then applied to the rows by key, full row images
     * setting or removing a row: for each key the last change before {@code H} decides, and a key
     * without one is as the snapshot read it, as no transaction after {@code L} touched it. The rows are
     * then the table's at {@code H}, which is the chunk's mark. A schema change of the table in that
     * window reads the chunk again.
     */
    private MySqlPosition readChunkWithBackfill(TableId tableId, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, Consumer<ChangeEvent> out) {
        for (int attempt = 1; ; attempt++) {
            MySqlGtidSet low;
            Snapshot read;
            List<Row> held = new ArrayList<>();
            try (Statement s = connection.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_executed")) {
                    rs.next();
                    low = MySqlGtidSet.parse(rs.getString(1));
                }
                s.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
                s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY");
                read = committed(s, () -> {
                    MySqlPosition high = masterStatus(); // after the snapshot was opened
                    MySqlTable described = table(tableId);
                    readRows(described, keyColumns, after, upTo, e -> held.add(e.after()));
                    return new Snapshot(high, described);
                });
            } catch (SQLException e) {
                throw failure(e);
            }
            ChunkBackfill backfill = backfill(read.described, keyColumns, after, upTo, held);
            boolean complete = backfill.apply(low, read.high, backfillBound);
            if (backfill.nextBound() != null) {
                backfillBound = backfill.nextBound();
            }
            if (complete) {
                emit(backfill, read.described.description, out);
                // with its GTIDs, the mark still orders against the stream after a move to a replica
                return backfill.high(read.high);
            }
            if (attempt == 3) {
                throw schemaChanged(tableId, attempt);
            }
        }
    }

    /** What a chunk's snapshot read: the binlog's end after it was opened, and the table as described in it. */
    private record Snapshot(MySqlPosition high, MySqlTable described) {}

    /** {@code read} in the transaction open on {@code s}, then its commit; a rollback when it fails. */
    private static <T> T committed(Statement s, JdbcTransactions.Work<T> read) throws SQLException {
        return JdbcTransactions.committed(read, () -> s.execute("COMMIT"), () -> s.execute("ROLLBACK"));
    }

    private ChunkBackfill backfill(MySqlTable described, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, List<Row> held) {
        return new ChunkBackfill(config, connection, charsets(), described.description, keyColumns, after, upTo, held);
    }

    private void emit(ChunkBackfill backfill, TableDescription d, Consumer<ChangeEvent> out) {
        backfill.rows().forEach(row -> out.accept(read(d, row)));
    }

    private ChangeEvent read(TableDescription d, Row row) {
        return ChangeEvent.builder(Op.READ, d.table(), snapshotSource).after(row).shape(d.shape()).build();
    }

    private static CdcException schemaChanged(TableId tableId, int reads) {
        return new CdcException(CdcException.Kind.STATE, "Table " + tableId.database() + "." + tableId.table()
                + " changed its schema while each of " + reads + " reads of one of its chunks was completed "
                + "from the binlog; the source fails so that it restarts and reads the chunk again.");
    }

    private Map<Integer, String> charsets() {
        if (charsets == null) {
            try {
                charsets = BinlogTables.charsets(connection);
            } catch (SQLException e) {
                throw failure(e);
            }
        }
        return charsets;
    }

    private void readRows(MySqlTable table, List<String> keyColumns, @Nullable Object[] after, @Nullable Object[] upTo,
            Consumer<ChangeEvent> out) throws SQLException {
        List<MySqlColumn> columns = table.columns;
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < columns.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append(SnapshotValues.select(columns.get(i), MySqlSql.quote(columns.get(i).name())));
        }
        sql.append(" FROM ").append(MySqlSql.qualified(table.description.table()));
        if (after != null || upTo != null) {
            sql.append(" WHERE ");
            if (after != null) {
                sql.append(MySqlSql.tuple(keyColumns)).append(" > ").append(MySqlSql.placeholders(keyColumns));
            }
            if (upTo != null) {
                sql.append(after != null ? " AND " : "").append(MySqlSql.tuple(keyColumns)).append(" <= ")
                        .append(MySqlSql.placeholders(keyColumns));
            }
        }
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

    /**
     * The position in MariaDB's {@code binlog_snapshot_file} and {@code binlog_snapshot_position}: the
     * open consistent snapshot's, or the last commit's, unless another session's {@code SHOW STATUS}
     * wrote its own there meanwhile (see {@link #readMariaDbChunk}).
     */
    private MySqlPosition snapshotPosition() throws SQLException {
        String file = null;
        long offset = -1;
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SHOW STATUS LIKE 'binlog_snapshot_%'")) {
            while (rs.next()) {
                if ("binlog_snapshot_file".equalsIgnoreCase(rs.getString(1))) {
                    file = rs.getString(2);
                } else if ("binlog_snapshot_position".equalsIgnoreCase(rs.getString(1))) {
                    offset = Long.parseLong(rs.getString(2));
                }
            }
        }
        if (file == null || file.isEmpty() || offset < 4) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "The " + config.flavor() + " server does not "
                    + "report the binlog position of a consistent snapshot (binlog_snapshot_file/position), which "
                    + "an exact snapshot needs. Snapshots are supported on MariaDB; on Oracle MySQL start the "
                    + "source with startup mode 'latest' or 'committed' for now.");
        }
        return MySqlPosition.at(config.flavor(), file, offset);
    }

    /**
     * The binlog's end now, with the GTIDs executed before it: on MariaDB those of {@code
     * BINLOG_GTID_POS}, on Oracle MySQL with {@code gtid_mode = ON} a set read before the end, then
     * completed from the binlog up to it ({@link ExecutedGtids}); without GTIDs, file and offset only.
     */
    @Override
    public MySqlPosition currentPosition() {
        if (config.flavor() == ServerFlavor.MYSQL) {
            try {
                if (!ExecutedGtids.on(connection)) {
                    return masterStatus();
                }
                MySqlGtidSet before = ExecutedGtids.now(connection);
                return ExecutedGtids.before(config, connection, charsets(), before, masterStatus());
            } catch (SQLException e) {
                throw failure(e);
            }
        }
        try (Statement s = connection.createStatement()) {
            s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
            try {
                return withGtids(snapshotPosition());
            } finally {
                s.execute("COMMIT");
            }
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    /**
     * The binlog's end: {@code SHOW BINARY LOG STATUS} (MySQL 8.2+; 8.4 removed the older name), else
     * {@code SHOW MASTER STATUS}.
     */
    private MySqlPosition masterStatus() throws SQLException {
        try {
            return binlogEnd("SHOW BINARY LOG STATUS");
        } catch (SQLException olderServer) {
            return binlogEnd("SHOW MASTER STATUS");
        }
    }

    private MySqlPosition binlogEnd(String statement) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(statement)) {
            if (!rs.next()) {
                throw new CdcException(CdcException.Kind.PREREQUISITE, statement + " shows no binlog: start the "
                        + "server with binary logging on (--log-bin).");
            }
            return MySqlPosition.at(config.flavor(), rs.getString(1), rs.getLong(2));
        }
    }

    /** The MariaDB position with the GTIDs executed before it: BINLOG_GTID_POS is exact for a file and offset. */
    private MySqlPosition withGtids(MySqlPosition at) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("SELECT BINLOG_GTID_POS(?, ?)")) {
            s.setString(1, at.file());
            s.setLong(2, at.offset());
            try (ResultSet rs = s.executeQuery()) {
                String gtids = rs.next() ? rs.getString(1) : null;
                return gtids == null ? at : MySqlPosition.at(at.file(), at.offset(), MariaDbGtidPosition.parse(gtids));
            }
        }
    }

    private CdcException failure(SQLException e) {
        return MySqlConnections.failure(config, e);
    }

    /**
     * Safe to call from another thread while a read is in progress, to end it (a cancelled task's
     * worker may be blocked in one): the driver's {@code close()} would wait for that read's socket
     * lock, while {@code abort} has the server kill the connection (from a connection of its own) and
     * then closes it. The same for the connection of a binlog window being read.
     */
    @Override
    public void close() {
        Connection window = windowConnection;
        if (window != null) {
            Disconnects.abort(window);
        }
        Disconnects.abort(connection);
    }
}
