package io.rustcdc.flink.mysql;

import com.github.shyiko.mysql.binlog.event.Event;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.EmittedShapes;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The binlog from a position, through mysql-binlog-connector-java ({@link BinlogConnection}). The
 * client's thread only queues events ({@link BinlogQueue}, blocking when it is full); the polling
 * thread decodes them ({@link BinlogEvents}), so a failure surfaces in order, before anything that
 * followed it ({@link StreamFailures#of}). Positions are the start of the transaction plus the row
 * events and rows already delivered ({@link BinlogCursor}), so a restart inside a transaction
 * delivers each row once. The binlog keeps no reader state on the server: {@link #confirm} has
 * nothing to tell it.
 */
final class MySqlChangeStream implements ChangeStream<MySqlPosition> {
    private static final Logger LOG = LoggerFactory.getLogger(MySqlChangeStream.class);

    private final BinlogQueue queue = new BinlogQueue();
    private final ArrayDeque<StreamRecord<MySqlPosition>> pending = new ArrayDeque<>();
    private final StreamFailures failures;
    /** What DDL statements are classified against (only statements and the rows read update it). */
    private final HeldShapes heldShapes = new HeldShapes();
    private final BinlogCursor cursor;
    private final BinlogConnection binlog;
    private final BinlogStatements statements;
    private final BinlogEvents events;
    /** The lag gauges' samples; none for a backfill. */
    @Nullable private final BinlogCheck check;
    /** The server closed a backfill's binlog at its end, and everything before was delivered. */
    private boolean ended;

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
        this.failures = new StreamFailures(config);
        // a MySQL set resumes even when empty (the server then sends every transaction); MariaDB's empty
        // connect state would not mean "after nothing"
        boolean byGtids = backfill ? backfillByGtids && from.gtidText() != null
                : from.gtidText() != null && (from.flavor() == ServerFlavor.MYSQL || !from.mariaDbGtids().isEmpty());
        this.binlog = new BinlogConnection(config, from, backfill, byGtids, backfillAtPosition, session, charsets,
                queue, failures);
        this.cursor = new BinlogCursor(from, binlog.server(), byGtids, backfill, failures, pending);
        XaCommits xaCommits = new XaCommits(filter, binlog.connection(), cursor, failures, backfill);
        this.statements = new BinlogStatements(config, filter, binlog.connection(), binlog.tables(), binlog.nameCase(),
                heldShapes, cursor, xaCommits, failures);
        BinlogRows rows = new BinlogRows(config, filter, binlog.tables(), heldShapes, cursor, failures);
        this.events = new BinlogEvents(cursor, statements, rows, xaCommits, binlog.progress(), failures);
        this.check = backfill ? null : new BinlogCheck(config, binlog.progress());
        if (backfill) {
            LOG.debug("Backfilling from the binlog of {}:{} from {}", config.hostname(), config.port(), from);
        } else {
            LOG.info("Reading the binlog of {}:{} from {} as server-id {}", config.hostname(), config.port(), from,
                    config.serverId());
        }
    }

    /**
     * A backfill's lower bound of where the transactions not in its GTID set are: the start of the
     * first one the server sent, or before one came, how far the server read (skipping the others).
     */
    MySqlPosition sentFrom() {
        return cursor.sentFrom();
    }

    /** A backfill's binlog reached its end (the server closed it) and every record before was polled. */
    boolean ended() {
        return ended && pending.isEmpty();
    }

    @Override
    @Nullable
    public StreamRecord<MySqlPosition> poll(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (pending.isEmpty()) {
            Object next = queue.poll(deadline - System.nanoTime());
            if (next == null) {
                return null;
            }
            if (BinlogQueue.isEnd(next)) {
                ended = true;
                return null;
            }
            if (next instanceof Exception) {
                throw failures.of((Exception) next, cursor);
            }
            events.handle((Event) next);
        }
        return pending.poll();
    }

    /** The lag gauges ({@link BinlogCheck}); a backfill has none. */
    @Override
    public void registerMetrics(MetricGroup group) {
        if (check != null) {
            check.registerMetrics(group);
        }
    }

    /** The bytes of the binlog events the client received, heartbeats included, as their headers give them. */
    @Override
    public long bytesRead() {
        return binlog.progress().bytes();
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
        statements.captured(tables);
    }

    @Override
    public void close() {
        queue.close();
        if (check != null) {
            check.close();
        }
        binlog.close();
    }
}
