package io.rustcdc.flink.mysql;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.DeleteRowsEventData;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.GtidEventData;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.RotateEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.UpdateRowsEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import com.github.shyiko.mysql.binlog.network.ServerException;
import io.rustcdc.flink.mysql.binlog.BinlogClients;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.EmittedShapes;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.io.IOException;
import java.io.Serializable;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.annotation.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The binlog from a position, through mysql-binlog-connector-java. The client's thread only queues
 * events (blocking when the queue is full); the polling thread decodes them, so a failure surfaces
 * in order, before anything that followed it. Positions are the start of the transaction plus the
 * row events and rows already delivered, so a restart inside a transaction delivers each row once.
 * The binlog keeps no reader state on the server: {@link #confirm} has nothing to tell it.
 */
final class MySqlChangeStream implements ChangeStream<MySqlPosition> {
    private static final Logger LOG = LoggerFactory.getLogger(MySqlChangeStream.class);
    private static final int QUEUE_CAPACITY = 4096;
    /** MariaDB's GTID flag of an XA transaction's PREPARE group (log_event.h), unknown to the client. */
    private static final int FL_PREPARED_XA = 64;
    /** Queued by a backfill's client when the server reached the binlog's end and closed the connection. */
    private static final Object END = new Object();

    private final MySqlSourceConfig config;
    private final TableFilter filter;
    /** The tables the reader captures (see {@link #captured}); null until it says, then the filter counts. */
    @Nullable private volatile Set<TableId> captured;
    private final MySqlPosition from;
    private final Connection connection;
    private final boolean ownsConnection;
    private final BinlogTables tables;
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>(QUEUE_CAPACITY);
    private final ArrayDeque<StreamRecord<MySqlPosition>> pending = new ArrayDeque<>();
    private final Map<Long, TableMapEventData> tableMaps = new HashMap<>();
    private final BinaryLogClient client;
    private final StreamFailures failures;
    /** What DDL statements are classified against (only {@link #statement} and the rows read update it). */
    private final HeldShapes heldShapes = new HeldShapes();
    /** How far the stream has read, and the bytes its client received; sampled by {@link #check}. */
    private final BinlogProgress progress;
    /** The lag gauges' samples; none for a backfill. */
    @Nullable private final BinlogCheck check;
    private volatile boolean closing;

    private String file;
    /** Between transactions: where the next one starts, with the GTIDs executed before it. */
    private MySqlPosition committed;
    /** Inside a transaction: where it starts; null between transactions. */
    @Nullable private MySqlPosition transaction;
    @Nullable private String gtid;
    private boolean standalone;
    /** The transaction is an XA PREPARE: its rows are logged before it commits or rolls back. */
    private boolean preparedXa;
    private long rowEvents;
    /** Changes of the filter's tables in the transaction so far, delivered or skipped on resume: the events' index. */
    private long changesInTransaction;
    private long skipEvents;
    private long skipRows;
    private boolean resumed;
    /** Whether the binlog was opened at the position's GTIDs rather than its file and offset. */
    private final boolean byGtids;
    /** A chunk's backfill: read to the binlog's end without blocking, as server-id 0 (see {@link #backfill}). */
    private final boolean backfill;
    /** The server closed a backfill's binlog at its end, and everything before was delivered. */
    private boolean ended;
    /** A backfill's first transaction the server sent: where it starts. */
    @Nullable private MySqlPosition firstSent;

    MySqlChangeStream(MySqlSourceConfig config, TableFilter filter, MySqlPosition from) {
        this(config, filter, from, false, false, false, null, null);
    }

    /**
     * A chunk's backfill on Oracle MySQL: the binlog from {@code from} to its current end, then
     * {@link #ended()}. With {@code byGtids} it starts at {@code from}'s MySQL GTID set (the server
     * sends every transaction not in it, in binlog order), from the first binlog file that holds
     * one, or with {@code atPosition} from {@code from}'s file and offset; else at its file and
     * offset. It connects in the non-blocking mode {@code mysqlbinlog} uses: server-id 0, which the
     * server ends at the binlog's end and never takes for another reader's id (a connection with id
     * 0 neither drops nor is dropped by another one), so concurrent backfills need no ids of their
     * own. A heartbeat, which the server sends where it skipped transactions of the GTID set, is a
     * progress record.
     */
    static MySqlChangeStream backfill(MySqlSourceConfig config, TableFilter filter, MySqlPosition from,
            boolean byGtids, boolean atPosition, Connection session, Map<Integer, String> charsets) {
        return new MySqlChangeStream(config, filter, from, true, byGtids, atPosition, session, charsets);
    }

    /**
     * @param session for a backfill, the catalogue session's connection (not in a transaction),
     *     used and not closed; null to open one of its own
     */
    private MySqlChangeStream(MySqlSourceConfig config, TableFilter filter, MySqlPosition from, boolean backfill,
            boolean backfillByGtids, boolean backfillAtPosition, @Nullable Connection session,
            @Nullable Map<Integer, String> charsets) {
        this.config = config;
        this.filter = filter;
        this.from = from;
        this.backfill = backfill;
        this.failures = new StreamFailures(config);
        this.file = from.file();
        this.committed = from.movedTo(from.file(), from.offset());
        this.connection = session != null ? session : MySqlConnections.connect(config);
        this.ownsConnection = session == null;
        // a MySQL set resumes even when empty (the server then sends every transaction); MariaDB's empty
        // connect state would not mean "after nothing"
        this.byGtids = backfill ? backfillByGtids && from.gtidText() != null
                : from.gtidText() != null && (from.flavor() == ServerFlavor.MYSQL || !from.mariaDbGtids().isEmpty());
        try {
            if (!byGtids || backfillAtPosition) {
                BinlogRetention.requireFile(connection, from.file(), from.offset());
            }
            if (from.gtidText() != null && from.flavor() == ServerFlavor.MARIADB) {
                BinlogRetention.requireMariaDbGtids(connection, from.mariaDbGtids());
            } else if (from.gtidText() != null) {
                BinlogRetention.requireMySqlGtids(connection, from.mysqlGtids());
                String missing = backfill ? null : BinlogRetention.mysqlGtidsNotHeld(connection, from.mysqlGtids());
                if (missing != null) {
                    throw failures.gtidsNotHeld(from, missing);
                }
            }
            this.tables = new BinlogTables(connection, charsets != null ? charsets : BinlogTables.charsets(connection));
        } catch (SQLException | RuntimeException e) {
            closeConnection();
            throw e instanceof SQLException ? MySqlConnections.failure(config, (SQLException) e) : (RuntimeException) e;
        }
        this.client = BinlogClients.create(config, from.file(), from.offset(), this::enqueue, this::fail,
                backfill ? this::end : null);
        this.progress = new BinlogProgress(from);
        client.registerEventListener(progress);
        if (byGtids) {
            // the server finds the first transaction after the GTIDs in its own binlog: a replica's too
            client.setGtidSet(from.gtidText());
            // a backfill may say where in the binlog the first of them is at the earliest
            client.setUseBinlogFilenamePositionInGtidMode(backfill && backfillAtPosition);
        }
        BinlogTls.configure(client, config);
        try {
            client.connect(config.connectTimeout().toMillis());
        } catch (IOException | java.util.concurrent.TimeoutException e) {
            closeConnection();
            throw new CdcException(CdcException.Kind.CONNECTION, "Could not open the binlog of " + config.flavor()
                    + " at " + config.hostname() + ":" + config.port() + " as '" + config.username() + "' from "
                    + from + " (server-id " + config.serverId() + "): " + e.getMessage());
        }
        this.check = backfill ? null : new BinlogCheck(config, progress);
        if (backfill) {
            LOG.debug("Backfilling from the binlog of {}:{} from {}", config.hostname(), config.port(), from);
        } else {
            LOG.info("Reading the binlog of {}:{} from {} as server-id {}", config.hostname(), config.port(), from,
                    config.serverId());
        }
    }

    private void end() {
        if (!closing) {
            enqueue(END);
        }
    }

    /**
     * A backfill's lower bound of where the transactions not in its GTID set are: the start of the
     * first one the server sent, or before one came, how far the server read (skipping the others).
     */
    MySqlPosition sentFrom() {
        return firstSent != null ? firstSent : committed;
    }

    /** A backfill's binlog reached its end (the server closed it) and every record before was polled. */
    boolean ended() {
        return ended && pending.isEmpty();
    }

    /**
     * Called on the client's thread, which holds the client's connect lock while it reads: it must not
     * wait on a full queue once the stream closes, or {@link BinaryLogClient#disconnect} (which waits
     * for that lock) would never return and the task would not end on cancellation.
     */
    private void enqueue(Object eventOrFailure) {
        try {
            while (!closing) {
                if (queue.offer(eventOrFailure, 100, TimeUnit.MILLISECONDS)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void fail(Exception e) {
        if (!closing) {
            enqueue(e);
        }
    }

    @Override
    @Nullable
    public StreamRecord<MySqlPosition> poll(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (pending.isEmpty()) {
            Object next = queue.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (next == null) {
                return null;
            }
            if (next == END) {
                ended = true;
                return null;
            }
            if (next instanceof Exception) {
                throw failure((Exception) next);
            }
            handle((Event) next);
        }
        return pending.poll();
    }

    private CdcException failure(Exception e) {
        if (e instanceof CdcException) {
            return (CdcException) e;
        }
        if (String.valueOf(e.getMessage()).contains("same server_uuid/server_id")) {
            return failures.sameServerId(e);
        }
        if (byGtids && String.valueOf(e.getMessage()).contains("anonymous transaction")) {
            return failures.anonymousByGtids(transaction != null ? transaction : committed, e);
        }
        if (byGtids && !resumed && e instanceof ServerException && ((ServerException) e).getErrorCode() == 1236) {
            return failures.gtidsNotHeld(from, e);
        }
        MySqlPosition after = transaction != null ? transaction : committed;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.SocketTimeoutException) {
                return failures.silent(after, BinlogClients.READ_TIMEOUT, BinlogClients.HEARTBEAT, e);
            }
        }
        return failures.lost(after, e);
    }

    private void handle(Event event) {
        EventHeaderV4 header = event.getHeader();
        switch (header.getEventType()) {
            case HEARTBEAT:
                // a backfill's server skips the transactions of the start's GTIDs, and says how far it read
                if (backfill && transaction == null && header.getNextPosition() > 0) {
                    committed = committed.movedTo(file, header.getNextPosition());
                    pending.add(StreamRecord.progress(committed));
                }
                break;
            case ROTATE: {
                RotateEventData rotate = event.getData();
                file = rotate.getBinlogFilename();
                // Before the first transaction, the stream is still at its start: by GTIDs the server rotates
                // to the start of the first file it reads, where the GTIDs are not those of the start; from
                // inside a transaction, a checkpoint of the boundary would deliver its first rows again.
                boolean atStart = !resumed && !backfill && (byGtids || from.eventsTaken() > 0 || from.rowsTaken() > 0);
                if (transaction == null && !atStart) {
                    committed = committed.movedTo(file, rotate.getBinlogPosition());
                    pending.add(StreamRecord.progress(committed));
                }
                break;
            }
            case MARIADB_GTID: {
                MariadbGtidEventData g = event.getData();
                // the event's own server id is not decoded by the client: the header's is the GTID's
                begin(header.getPosition(), g.getDomainId() + "-" + header.getServerId() + "-" + g.getSequence());
                standalone = (g.getFlags() & MariadbGtidEventData.FL_STANDALONE) != 0;
                preparedXa = (g.getFlags() & FL_PREPARED_XA) != 0;
                break;
            }
            case GTID: {
                GtidEventData g = event.getData();
                begin(header.getPosition(), g.getMySqlGtid().toString());
                standalone = true; // until a BEGIN follows: a DDL statement is its transaction by itself
                break;
            }
            case ANONYMOUS_GTID:
                // gtid_mode is not ON: the transaction starts here, whether a BEGIN or a DDL statement follows
                // (positions are then by file and offset; a stream by GTIDs is never sent one: see failure)
                begin(header.getPosition(), null);
                standalone = true;
                break;
            case QUERY:
                query(header, event.getData());
                break;
            case XID:
                commit(header.getNextPosition());
                break;
            case TABLE_MAP: {
                TableMapEventData map = event.getData();
                tableMaps.put(map.getTableId(), map);
                break;
            }
            case WRITE_ROWS:
            case EXT_WRITE_ROWS: {
                WriteRowsEventData rows = event.getData();
                rows(header, rows.getTableId(), Op.INSERT, rows.getRows(), null);
                break;
            }
            case UPDATE_ROWS:
            case EXT_UPDATE_ROWS: {
                UpdateRowsEventData rows = event.getData();
                rows(header, rows.getTableId(), Op.UPDATE, null, rows.getRows());
                break;
            }
            case DELETE_ROWS:
            case EXT_DELETE_ROWS: {
                DeleteRowsEventData rows = event.getData();
                rows(header, rows.getTableId(), Op.DELETE, rows.getRows(), null);
                break;
            }
            case TRANSACTION_PAYLOAD:
            case PARTIAL_UPDATE_ROWS_EVENT:
            case UNKNOWN:
                if (transaction != null) {
                    // a JSON diff or an event this reader does not know, inside a transaction: skipping it could
                    // lose changes (compressed transactions arrive expanded: binlog/CompressedTransactions)
                    throw failures.undecodable(header.getEventType(), transaction);
                }
                break;
            default:
                break;
        }
        progress.took(file, event, committed);
    }

    private void query(EventHeaderV4 header, QueryEventData query) {
        String sql = query.getSql().trim().toUpperCase(Locale.ROOT);
        if (!sql.equals("BEGIN") && !sql.equals("COMMIT") && !sql.equals("ROLLBACK")) {
            requireNoStatementChange(header, query); // transaction brackets need no parse
        }
        if (sql.equals("BEGIN") || sql.startsWith("XA START")) {
            if (transaction == null) {
                begin(header.getPosition(), null);
            }
            standalone = false; // its rows and statements follow, up to its commit
        } else if (sql.equals("COMMIT") || sql.equals("ROLLBACK")) {
            commit(header.getNextPosition());
        } else if (transaction == null || standalone) {
            // a statement of its own (DDL): the catalogue may have changed under the shapes
            tables.forgetShapes();
            if (transaction == null) {
                begin(header.getPosition(), null);
            }
            statement(header, query, MySqlDdl.parse(query.getSql(), query.getDatabase()));
            commit(header.getNextPosition());
        } else {
            // CREATE TABLE ... SELECT: the statement opens the transaction that holds its rows
            List<MySqlDdl.Change> changes = MySqlDdl.parse(query.getSql(), query.getDatabase());
            if (!changes.isEmpty()) {
                tables.forgetShapes();
                statement(header, query, changes);
            }
        }
    }

    /**
     * A change logged as a statement (a session set {@code binlog_format} to STATEMENT or MIXED) has
     * no rows to read: fails unless it surely changes only a table this source does not capture.
     */
    private void requireNoStatementChange(EventHeaderV4 header, QueryEventData query) {
        TableId table = MySqlDdl.dmlTable(query.getSql(), query.getDatabase());
        if (table == MySqlDdl.NOT_DML || table != null && !filter.matches(table)) {
            return;
        }
        throw failures.loggedAsStatement(file + ":" + header.getPosition(), table, query.getDatabase());
    }

    /**
     * Schema changes (and truncations) of captured tables, one record each, positioned inside the
     * statement's transaction so that a restart between them emits the rest once. A statement with
     * changes counts as an event of its transaction, as a row event does.
     */
    private void statement(EventHeaderV4 header, QueryEventData query, List<MySqlDdl.Change> changes) {
        if (changes.isEmpty()) {
            return;
        }
        // counted with the row events: a statement inside a transaction is followed by its rows
        long index = rowEvents++;
        Instant commitTime = Instant.ofEpochMilli(header.getTimestamp());
        int from = index < skipEvents ? changes.size() : index == skipEvents ? (int) skipRows : 0;
        for (int i = 0; i < changes.size(); i++) {
            MySqlDdl.Change change = changes.get(i);
            if (!filter.matches(change.table)) {
                continue;
            }
            long number = ++changesInTransaction;
            if (i < from) {
                continue; // delivered before the restart
            }
            if (change.renamedFrom != null && isCaptured(change.table) && !isCaptured(change.renamedFrom)) {
                throw failures.renamedIn(change.renamedFrom, change.table, file + ":" + header.getPosition());
            }
            if (change.kind == MySqlDdl.Kind.CREATE_TABLE || change.kind == MySqlDdl.Kind.ALTER_TABLE) {
                requireLoggedCascades(change.table);
            }
            MySqlPosition position = transaction.inTransaction(index, i + 1);
            SourceInfo source = SourceInfo.stream(config.flavor().sourceName(), position, commitTime);
            ChangeEvent event = change.kind == MySqlDdl.Kind.TRUNCATE_TABLE
                    ? ChangeEvent.builder(Op.TRUNCATE, change.table, source).transaction(transactionInfo(number)).build()
                    : HeldShapes.leavesShape(change, query.getSql()) ? unchanged(change, query.getSql(), source, number)
                    : schemaChange(change, query.getSql(), source, number);
            pending.add(StreamRecord.of(event, position));
        }
    }

    /** The schema change of one table, classified against the shape the stream held before it. */
    private ChangeEvent schemaChange(MySqlDdl.Change change, String sql, SourceInfo source, long number) {
        RowShape after = change.kind == MySqlDdl.Kind.DROP_TABLE ? null : tables.catalogueShape(change.table);
        List<ShapeChange> classified = heldShapes.classify(change, sql, tables.rowsShape(change.table), after);
        tables.forgetRowsShape(change.table);
        return ChangeEvent.builder(Op.SCHEMA_CHANGE, change.table, source)
                .after(SchemaChangeRows.of(change.table, change.kind.schemaChange(), sql)).shape(after)
                .shapeChanges(classified).transaction(transactionInfo(number)).build();
    }

    /**
     * A statement that cannot change the table's shape (an index, a default, a table option): classified
     * as such from the statement alone, with the shape held before it, which it leaves (none when none is
     * held: the catalogue's now may hold later statements).
     */
    private ChangeEvent unchanged(MySqlDdl.Change change, String sql, SourceInfo source, long number) {
        RowShape left = heldShapes.unchanged(change.table, tables.rowsShape(change.table));
        tables.forgetRowsShape(change.table);
        return ChangeEvent.builder(Op.SCHEMA_CHANGE, change.table, source)
                .after(SchemaChangeRows.of(change.table, change.kind.schemaChange(), sql)).shape(left)
                .shapeChanges(List.of(ShapeChange.unchanged())).transaction(transactionInfo(number)).build();
    }

    /** A captured table created or altered while the stream runs gets the start's foreign key check. */
    private void requireLoggedCascades(TableId table) {
        try {
            config.foreignKeyCascades().check(connection, List.of(table));
        } catch (SQLException goneOrUnreadable) {
            // dropped since, or not readable: no key of it is in force now
        }
    }

    private void begin(long offset, @Nullable String gtid) {
        if (!resumed && byGtids && from.transactionGtid() != null && gtid != null && !gtid.equals(from.transactionGtid())) {
            // the rows taken are of a transaction this server does not send first: skipping them here would
            // drop rows of another one, and delivering the position's transaction whole would repeat its rows
            throw failures.otherTransactionFirst(from, gtid);
        }
        transaction = committed.movedTo(file, offset).startOf(gtid);
        changesInTransaction = 0;
        if (backfill && firstSent == null) {
            firstSent = transaction;
        }
        this.gtid = gtid;
        standalone = false;
        preparedXa = false;
        rowEvents = 0;
        skipEvents = 0;
        skipRows = 0;
        if (!resumed && (byGtids || file.equals(from.file()) && offset == from.offset())) {
            skipEvents = from.eventsTaken();
            skipRows = from.rowsTaken();
        }
        resumed = true;
    }

    private void commit(long nextOffset) {
        committed = (transaction != null ? transaction : committed).committed(file, nextOffset, gtid);
        transaction = null;
        gtid = null;
        pending.add(StreamRecord.transactionEnd(committed));
    }

    private void rows(EventHeaderV4 header, long tableId, Op op, @Nullable List<Serializable[]> images,
            @Nullable List<Map.Entry<Serializable[], Serializable[]>> updates) {
        long index = rowEvents++;
        if (transaction == null) {
            return;
        }
        TableMapEventData map = tableMaps.get(tableId);
        if (map == null) {
            throw new CdcException(CdcException.Kind.DECODE, "A row event at " + file + ":" + header.getPosition()
                    + " names table id " + tableId + " without a table map before it in its transaction.");
        }
        TableId table = TableId.of(map.getDatabase(), map.getDatabase(), map.getTable());
        if (!filter.matches(table)) {
            return;
        }
        BinlogTables.Decoder decoder = tables.decoder(table, map);
        heldShapes.rowsRead(table);
        if (decoder.isSequence()) {
            return;
        }
        int count = images != null ? images.size() : updates.size();
        if (index < skipEvents) {
            changesInTransaction += count; // delivered before the restart, and still counted in the events' index
            return;
        }
        if (preparedXa) {
            throw failures.preparedXa(table, transaction);
        }
        Instant commitTime = Instant.ofEpochMilli(header.getTimestamp());
        int first = index == skipEvents ? (int) skipRows : 0;
        changesInTransaction += first;
        for (int r = first; r < count; r++) {
            MySqlPosition position = transaction.inTransaction(index, r + 1);
            SourceInfo source = SourceInfo.stream(config.flavor().sourceName(), position, commitTime);
            ChangeEvent.Builder event = ChangeEvent.builder(op, table, source).shape(decoder.shape())
                    .transaction(transactionInfo(++changesInTransaction));
            if (op == Op.INSERT) {
                event.after(decoder.row(images.get(r)));
            } else if (op == Op.DELETE) {
                event.before(decoder.row(images.get(r)));
            } else {
                event.before(decoder.row(updates.get(r).getKey())).after(decoder.row(updates.get(r).getValue()));
            }
            pending.add(StreamRecord.of(event.build(), position));
        }
    }

    /**
     * The transaction of a change: its GTID ({@code uuid:number} on Oracle MySQL, {@code
     * domain-server-sequence} on MariaDB), or without one where it starts in the binlog; the change's
     * number among the transaction's changes of the captured tables; the total is not in the binlog
     * before the commit.
     */
    private TransactionInfo transactionInfo(long number) {
        String id = gtid != null ? gtid : transaction.file() + ":" + transaction.offset();
        return TransactionInfo.of(id, number, TransactionInfo.UNKNOWN);
    }

    /** The lag gauges ({@link BinlogCheck}); a backfill has none. */
    @Override
    public void registerMetrics(org.apache.flink.metrics.MetricGroup group) {
        if (check != null) {
            check.registerMetrics(group);
        }
    }

    /** The bytes of the binlog events the client received, heartbeats included, as their headers give them. */
    @Override
    public long bytesRead() {
        return progress.bytes();
    }

    @Override
    public void confirm(MySqlPosition position) {
        // the server keeps no reader state: binlog retention is the server's own setting
    }

    /** Schema changes after the position are classified against what the stream's events said before it. */
    @Override
    public void resumeShapes(EmittedShapes shapes) {
        heldShapes.resume(shapes);
    }

    @Override
    public void captured(Set<TableId> tables) {
        captured = Set.copyOf(tables);
    }

    /** Whether the reader delivers {@code table}'s changes as a changelog (the filter's, until it says). */
    private boolean isCaptured(TableId table) {
        Set<TableId> known = captured;
        return known == null ? filter.matches(table) : known.contains(table);
    }

    @Override
    public void close() {
        closing = true;
        if (check != null) {
            check.close();
        }
        // the client's disconnect skips closing its socket on an interrupted thread (a cancelled task's is)
        boolean interrupted = Thread.interrupted();
        try {
            client.disconnect();
        } catch (IOException e) {
            LOG.debug("Closing the binlog client failed", e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        closeConnection();
    }

    private void closeConnection() {
        if (!ownsConnection) {
            return;
        }
        Disconnects.abort(connection); // the polling thread may be in a catalogue query on it
    }
}
