package io.rustcdc.flink.mysql;

import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.network.ServerException;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import javax.annotation.Nullable;

/** The binlog stream's failures, each naming the server, where it happened and the remedy; never a value. */
final class StreamFailures {
    private final MySqlSourceConfig config;

    StreamFailures(MySqlSourceConfig config) {
        this.config = config;
    }

    /**
     * What a failure of the binlog client means, named after where the stream ({@code cursor}) was: a
     * reader with the same server-id, GTIDs the server lacks or a transaction without one, a silent
     * server, or a lost connection.
     */
    CdcException of(Exception e, BinlogCursor cursor) {
        if (e instanceof CdcException) {
            return (CdcException) e;
        }
        if (String.valueOf(e.getMessage()).contains("same server_uuid/server_id")) {
            return sameServerId(e);
        }
        if (cursor.byGtids() && String.valueOf(e.getMessage()).contains("anonymous transaction")) {
            return anonymousByGtids(cursor.at(), e);
        }
        if (cursor.byGtids() && !cursor.resumed() && e instanceof ServerException
                && ((ServerException) e).getErrorCode() == 1236) {
            return gtidsNotHeld(cursor.from(), e);
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.SocketTimeoutException) {
                return silent(cursor.at(), config.binlogReadTimeout(), config.binlogHeartbeat(), e);
            }
        }
        return lost(cursor.at(), e);
    }

    private String binlog() {
        return "The binlog of " + config.flavor() + " at " + config.hostname() + ":" + config.port();
    }

    private CdcException sameServerId(Exception e) {
        return new CdcException(CdcException.Kind.CONFIGURATION, "Another binlog reader of " + config.hostname()
                + ":" + config.port() + " connected with the same server-id " + config.serverId() + ", and the "
                + "server dropped this one: give every source and replica its own '" + MySqlSourceConfig.SERVER_ID
                + "'. (" + e.getMessage() + ")", e);
    }

    private CdcException gtidsNotHeld(MySqlPosition from, Exception e) {
        return new CdcException(CdcException.Kind.CONNECTION, notHeld(from) + " (" + e.getMessage() + ")", e);
    }

    /** Oracle MySQL: {@code missing} are the position's GTIDs the server lacks. */
    CdcException gtidsNotHeld(MySqlPosition from, String missing) {
        return new CdcException(CdcException.Kind.CONNECTION, notHeld(from) + " It lacks " + missing + ".");
    }

    private String notHeld(MySqlPosition from) {
        return config.flavor() + " at " + config.hostname() + ":" + config.port() + " does not hold the transactions "
                + "this source resumes after (" + from.gtidText() + "): it lags behind the server the position was "
                + "read from (the source succeeds once it has caught up: Flink's restarts retry), or it is not a "
                + "replica of that server or has diverged from it (then point the source at one that is).";
    }

    CdcException otherTransactionFirst(MySqlPosition from, String first) {
        return new CdcException(CdcException.Kind.STATE, config.flavor() + " at " + config.hostname() + ":"
                + config.port() + " sends transaction " + first + " first after " + from.gtidText() + ", but the source's "
                + "position is inside transaction " + from.transactionGtid() + " (" + from + "), part of which it "
                + "delivered: this server orders its binlog otherwise than the one the position was read from (a "
                + "transaction of its own, or one of another source, before it), so no resume here is exact. Point "
                + "the source at the server the position was read from, or at a replica that applies its "
                + "transactions in order (replica_preserve_commit_order = ON), or restart it without its state.");
    }

    /** Oracle MySQL sends no transaction without a GTID to a reader that resumed by GTIDs. */
    private CdcException anonymousByGtids(MySqlPosition after, Exception e) {
        return new CdcException(CdcException.Kind.PREREQUISITE, binlog() + " holds a transaction without a GTID after "
                + after + " (gtid_mode is no longer ON), which the server does not send to a reader that resumes by "
                + "GTIDs, as this source does. Set gtid_mode back to ON (SET PERSIST gtid_mode = ON_PERMISSIVE, then "
                + "ON once no anonymous transaction is running), or restart the source without its state. (" + e.getMessage()
                + ")", e);
    }

    private CdcException lost(MySqlPosition after, Exception e) {
        return new CdcException(CdcException.Kind.CONNECTION, binlog() + " failed after " + after + ": "
                + e.getMessage(), e);
    }

    /** No event and no heartbeat within {@code timeout}: the server, or the network to it, is gone. */
    private CdcException silent(MySqlPosition after, java.time.Duration timeout, java.time.Duration heartbeat, Exception e) {
        return new CdcException(CdcException.Kind.CONNECTION, binlog() + " sent nothing for " + seconds(timeout)
                + " after " + after + ", not even the heartbeat this source asks for every " + seconds(heartbeat)
                + " ('" + MySqlSourceConfig.BINLOG_READ_TIMEOUT + "' = " + seconds(timeout) + "): the server is down "
                + "or hung, or the connection is half-open (a network or proxy failure). The source fails so that "
                + "Flink restarts it from its last checkpoint; if this repeats, check the server and the network "
                + "between. (" + e.getMessage() + ")", e);
    }

    private static String seconds(java.time.Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    CdcException undecodable(EventType type, MySqlPosition transaction) {
        return new CdcException(CdcException.Kind.PREREQUISITE, binlog() + " holds a " + type + " event inside the "
                + "transaction at " + transaction + ", which this source cannot decode: JSON diffs (SET GLOBAL "
                + "binlog_row_value_options = '') and events of a kind this source does not know are not supported, "
                + "and skipping one could lose changes. Restart the source without its state after the fix: the "
                + "events already written stay unreadable.");
    }

    CdcException incident(String at) {
        return new CdcException(CdcException.Kind.STATE, binlog() + " holds an incident event at " + at + ": the "
                + "server changed tables without logging the changes (for instance a statement on a non-transactional "
                + "table whose changes outgrew max_binlog_stmt_cache_size), so they are missing from the binlog, and "
                + "a replica stops here too. Make the captured tables consistent again (the server's error log names "
                + "the incident), then restart the source without its state so that a new snapshot reads them.");
    }

    CdcException rolledBackToSavepoint(String at, MySqlPosition transaction) {
        return new CdcException(CdcException.Kind.STATE, binlog() + " holds a ROLLBACK TO SAVEPOINT at " + at + " in the "
                + "transaction at " + transaction + ", after changes of captured tables: the server logs the changes "
                + "such a rollback undid when the transaction also changed a non-transactional table (MyISAM, Aria, "
                + "MEMORY), and this source cannot tell which of them were undone. Keep non-transactional tables out "
                + "of transactions that roll back to savepoints, and restart the source without its state so that a "
                + "new snapshot reads the tables.");
    }

    /** The statement itself is not quoted: its values are data. */
    CdcException loggedAsStatement(String at, @Nullable TableId table, String database) {
        return new CdcException(CdcException.Kind.PREREQUISITE, binlog() + " holds a change logged as a statement, "
                + "not as rows, at " + at + ", to " + (table == null ? "tables of database " + database
                : table.database() + "." + table.table()) + ": a session set binlog_format to STATEMENT or MIXED, "
                + "and the rows it changed are not in the binlog. Keep binlog_format = ROW in every session "
                + "(changing it needs a privilege), and restart the source without its state once the tables are "
                + "consistent again.");
    }

    CdcException preparedXa(TableId table, MySqlPosition transaction) {
        return new CdcException(CdcException.Kind.PREREQUISITE, binlog() + " holds rows of " + table.database() + "."
                + table.table() + " in an XA transaction prepared at " + transaction + ": the server logs an XA "
                + "transaction's rows when it is prepared, before it commits or rolls back, and this source does not "
                + "hold them back until then (a rolled-back one would appear as changes). Write captured tables in "
                + "ordinary transactions (or XA ... ONE PHASE), or exclude the table.");
    }

    CdcException largeXa(TableId table, MySqlPosition transaction, int held) {
        return new CdcException(CdcException.Kind.PREREQUISITE, binlog() + " holds an XA transaction at " + transaction
                + " with more than " + held + " changes of captured tables (the first of " + table.database() + "."
                + table.table() + "): Oracle MySQL logs whether an XA transaction committed (XA COMMIT ... ONE PHASE) "
                + "or was only prepared (which fails the stream) after its rows, so this source holds them in memory until "
                + "then, up to " + held + ". Write captured tables in ordinary transactions, or in XA transactions committed "
                + "in one phase with fewer changes, or exclude the table.");
    }

    CdcException xaGroupUnended(TableId table, MySqlPosition transaction, String at) {
        return new CdcException(CdcException.Kind.DECODE, binlog() + " holds an XA transaction at " + transaction
                + " with changes of " + table.database() + "." + table.table() + " whose group ended at " + at
                + " without the XA_PREPARE event that says whether it committed; its changes cannot be delivered.");
    }

    /**
     * The commit of an XA transaction prepared before the stream began reading ({@code from}), whose prepare changed
     * {@code table}: its rows are in the binlog before the start, and in no snapshot chunk read before the commit.
     */
    CdcException xaPreparedBefore(TableId table, String xid, String preparedAt, String committedAt,
            MySqlPosition from) {
        return new CdcException(CdcException.Kind.PREREQUISITE, binlog() + " commits XA transaction " + xid + " at "
                + committedAt + ", which was prepared at " + preparedAt + ", before this stream began reading at " + from
                + ", with changes of " + table.database() + "." + table.table() + ": the server logs an XA transaction's "
                + "rows at its prepare, so they are before the stream's start, and a snapshot chunk read before the "
                + "commit does not hold them. Restart the source without its state (a new snapshot reads them), and "
                + "write captured tables in ordinary transactions (or XA ... ONE PHASE), or exclude the table.");
    }

    /** As {@link #xaPreparedBefore}, for a prepare holding a statement whose table cannot be told. */
    CdcException xaPreparedUnsure(String xid, String preparedAt, String committedAt, MySqlPosition from) {
        return new CdcException(CdcException.Kind.PREREQUISITE, binlog() + " commits XA transaction " + xid + " at "
                + committedAt + ", which was prepared at " + preparedAt + ", before this stream began reading at " + from
                + ", with a change logged as a statement (binlog_format STATEMENT or MIXED in its session) whose table "
                + "this source cannot tell: its changes may be of captured tables, before the stream's start and not "
                + "in a snapshot chunk read before the commit. Restart the source without its state (a new snapshot "
                + "reads them), and log captured tables' changes as rows (binlog_format = ROW).");
    }

    /** The commit of an XA transaction prepared before the stream began reading, whose prepare the server no longer holds. */
    CdcException xaPrepareNotFound(String xid, String committedAt, MySqlPosition from) {
        return new CdcException(CdcException.Kind.PREREQUISITE, binlog() + " commits XA transaction " + xid + " at "
                + committedAt + ", which was prepared before this stream began reading at " + from + ", in no binlog "
                + "file the server holds now: this source cannot tell whether it "
                + "changed captured tables (the server logs an XA transaction's rows at its prepare, and a snapshot "
                + "chunk read before the commit does not hold them). Restart the source without its state (a new "
                + "snapshot reads them).");
    }

    CdcException xaPrepareUnread(String xid, String committedAt, MySqlPosition from, Exception e) {
        return new CdcException(CdcException.Kind.CONNECTION, binlog() + " commits XA transaction " + xid + " at "
                + committedAt + ", which was prepared before this stream began reading at " + from + ", and its prepare "
                + "could not be looked for in the binlog (SHOW BINLOG EVENTS): " + e.getMessage(), e);
    }

    /** A statement that changed rows of a captured table without logging them as rows ({@link UnloggedRowDdl}). */
    CdcException unloggedRows(TableId table, UnloggedRowDdl.Found statement, String at) {
        return new CdcException(CdcException.Kind.STATE, binlog() + " holds an ALTER TABLE ... " + statement.clause
                + " at " + at + ", which changed rows of " + table.database() + "." + table.table() + " without "
                + "logging them as rows (" + what(statement.clause) + "): the stream cannot deliver those changes, "
                + "and the table's rows as the stream gives them would no longer be the server's. Restart the source "
                + "without its state so that a new snapshot reads the table (or exclude the table).");
    }

    private static String what(String clause) {
        if (clause.startsWith("EXCHANGE") || clause.startsWith("CONVERT")) {
            return clause.startsWith("EXCHANGE") ? "it swaps a partition's rows and another table's"
                    : "it moves the rows between a partition and another table";
        }
        return clause.startsWith("IMPORT") ? "it brings in the rows of a tablespace file"
                : clause.startsWith("DISCARD") ? "it removes the table's or partition's tablespace with its rows"
                : "it removes the partition's rows";
    }

    CdcException renamedIn(TableId from, TableId to, String at) {
        return new CdcException(CdcException.Kind.STATE, binlog() + " renames " + from.database() + "." + from.table()
                + ", which this source does not capture, to " + to.database() + "." + to.table() + ", which it does, "
                + "at " + at + ": the rows the table holds then are in no change of the binlog, so the stream cannot "
                + "deliver them. Restart the source without its state so that the table is read again (or include "
                + "the old name too, so that its rows were captured before the rename).");
    }
}
