package io.rustcdc.flink.mysql;

import com.github.shyiko.mysql.binlog.event.DeleteRowsEventData;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.GtidEventData;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import com.github.shyiko.mysql.binlog.event.RotateEventData;
import com.github.shyiko.mysql.binlog.event.UpdateRowsEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import com.github.shyiko.mysql.binlog.event.XAPrepareEventData;
import io.rustcdc.flink.mysql.binlog.TaggedGtidEventData;
import io.rustcdc.flink.source.model.Op;

/**
 * What each binlog event does to the stream, on the polling thread: positions and transaction
 * brackets go to the {@link BinlogCursor}, query events to {@link BinlogStatements}, table maps and
 * rows to {@link BinlogRows}; an event this source cannot decode inside a transaction fails it.
 */
final class BinlogEvents {
    /** MariaDB's GTID flag of an XA transaction's PREPARE group (log_event.h), unknown to the client. */
    private static final int FL_PREPARED_XA = 64;

    private final BinlogCursor cursor;
    private final BinlogStatements statements;
    private final BinlogRows rows;
    private final XaCommits xaCommits;
    private final BinlogProgress progress;
    private final StreamFailures failures;

    BinlogEvents(BinlogCursor cursor, BinlogStatements statements, BinlogRows rows, XaCommits xaCommits,
            BinlogProgress progress, StreamFailures failures) {
        this.cursor = cursor;
        this.statements = statements;
        this.rows = rows;
        this.xaCommits = xaCommits;
        this.progress = progress;
        this.failures = failures;
    }

    void handle(Event event) {
        EventHeaderV4 header = event.getHeader();
        switch (header.getEventType()) {
            case HEARTBEAT:
            case PREVIOUS_GTIDS:
            case MARIADB_GTID_LIST:
            case BINLOG_CHECKPOINT:
                // between transactions: a file's header, or MariaDB's checkpoint, which it may write at any time
                cursor.passed(header.getNextPosition());
                break;
            case ROTATE: {
                RotateEventData rotate = event.getData();
                cursor.rotate(rotate.getBinlogFilename(), rotate.getBinlogPosition());
                break;
            }
            case MARIADB_GTID: {
                MariadbGtidEventData g = event.getData();
                // the event's own server id is not decoded by the client: the header's is the GTID's
                cursor.begin(header.getPosition(), g.getDomainId() + "-" + header.getServerId() + "-" + g.getSequence());
                cursor.standalone((g.getFlags() & MariadbGtidEventData.FL_STANDALONE) != 0);
                cursor.preparedXa((g.getFlags() & FL_PREPARED_XA) != 0);
                break;
            }
            case GTID: {
                EventData g = event.getData(); // a tagged GTID event (MySQL 8.3+) is read into data of its own
                cursor.begin(header.getPosition(), g instanceof TaggedGtidEventData ? ((TaggedGtidEventData) g).gtid()
                        : ((GtidEventData) g).getMySqlGtid().toString());
                cursor.standalone(true); // until a BEGIN follows: a DDL statement is its transaction by itself
                break;
            }
            case ANONYMOUS_GTID:
                // gtid_mode is not ON: the transaction starts here, whether a BEGIN or a DDL statement follows
                // (positions are then by file and offset; a stream by GTIDs is never sent one: see StreamFailures)
                cursor.begin(header.getPosition(), null);
                cursor.standalone(true);
                break;
            case QUERY:
                statements.query(header, event.getData());
                break;
            case INCIDENT: // changes the server made and could not log: whichever tables, they are not here
                if (!cursor.beforeStart(header.getPosition())) {
                    throw failures.incident(cursor.file() + ":" + header.getPosition());
                }
                break;
            case EXECUTE_LOAD_QUERY: // LOAD DATA logged as a statement
                statements.load(header, event.getData());
                break;
            case XID:
                cursor.commit(header.getNextPosition());
                break;
            case XA_PREPARE: {
                XAPrepareEventData xa = event.getData();
                cursor.xaGroupEnd(xa.isOnePhase(), header.getNextPosition());
                xaCommits.prepared(xa);
                break;
            }
            case TABLE_MAP:
                rows.tableMap(event.getData());
                break;
            case WRITE_ROWS:
            case EXT_WRITE_ROWS: {
                WriteRowsEventData data = event.getData();
                rows.rows(header, data.getTableId(), Op.INSERT, data.getRows(), null);
                break;
            }
            case UPDATE_ROWS:
            case EXT_UPDATE_ROWS: {
                UpdateRowsEventData data = event.getData();
                rows.rows(header, data.getTableId(), Op.UPDATE, null, data.getRows());
                break;
            }
            case DELETE_ROWS:
            case EXT_DELETE_ROWS: {
                DeleteRowsEventData data = event.getData();
                rows.rows(header, data.getTableId(), Op.DELETE, data.getRows(), null);
                break;
            }
            case TRANSACTION_PAYLOAD:
            case PARTIAL_UPDATE_ROWS_EVENT:
            case UNKNOWN:
                if (cursor.transaction() != null) {
                    // a JSON diff or an event this reader does not know, inside a transaction: skipping it could
                    // lose changes (compressed transactions arrive expanded: binlog/CompressedTransactions)
                    throw failures.undecodable(header.getEventType(), cursor.transaction());
                }
                break;
            default:
                break;
        }
        progress.took(cursor.file(), event, cursor.committed());
    }
}
