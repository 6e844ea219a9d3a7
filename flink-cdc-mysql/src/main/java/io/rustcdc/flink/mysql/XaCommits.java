package io.rustcdc.flink.mysql;

import com.github.shyiko.mysql.binlog.event.XAPrepareEventData;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;
import javax.annotation.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outcomes of XA transactions prepared apart from them ({@code XA PREPARE}, then {@code XA COMMIT} or
 * {@code XA ROLLBACK} by XID): the server logs the rows at the prepare, and the commit without them. A prepare
 * the stream read with changes of a captured table failed it ({@link StreamFailures#preparedXa}). A commit of
 * one prepared before the stream began reading (before its snapshot or start position, which it was not
 * committed in) carries changes the stream never reads: its prepare is looked for in the binlog ({@link
 * XaPrepares}), and the stream fails when it changed a captured table, or cannot be found, instead of going on
 * without them. A chunk's backfill leaves this to the stream, which reads every commit after the snapshot's start.
 */
final class XaCommits {
    private static final Logger LOG = LoggerFactory.getLogger(XaCommits.class);

    private final TableFilter filter;
    private final XaPrepares prepares;
    private final BinlogCursor cursor;
    private final StreamFailures failures;
    private final boolean backfill;
    /** The XIDs this stream read prepared, until it reads their outcome. */
    private final Set<String> preparedHere = new HashSet<>();

    XaCommits(TableFilter filter, Connection connection, BinlogCursor cursor, StreamFailures failures,
            boolean backfill) {
        this.filter = filter;
        this.prepares = new XaPrepares(connection);
        this.cursor = cursor;
        this.failures = failures;
        this.backfill = backfill;
    }

    /** An XA_PREPARE event: of a prepare, or of a commit in one phase. */
    void prepared(XAPrepareEventData xa) {
        if (!xa.isOnePhase()) {
            preparedHere.add(XaPrepares.xid(xa.getFormatID(), xa.getData(), xa.getGtridLength()));
        }
    }

    /**
     * A statement {@code XA COMMIT} or {@code XA ROLLBACK} ({@code sql}, trimmed and in upper case) at {@code
     * position} of the cursor's file.
     */
    void outcome(String sql, long position) {
        boolean commit = sql.startsWith("XA COMMIT");
        String xid = XaPrepares.xid(sql.substring(commit ? "XA COMMIT".length() : "XA ROLLBACK".length()));
        if (preparedHere.remove(xid) || !commit || backfill || xid.endsWith("ONEPHASE")) {
            return;
        }
        String at = cursor.file() + ":" + position;
        LOG.info("XA transaction {} commits at {}, prepared before this stream began reading at {}: looking for its "
                + "prepare in the binlog", xid, at, cursor.from());
        XaPrepares.Prepare prepare;
        try {
            prepare = prepares.find(xid, cursor.file(), position);
        } catch (SQLException e) {
            throw failures.xaPrepareUnread(xid, at, cursor.from(), e);
        }
        if (prepare == null) {
            throw failures.xaPrepareNotFound(xid, at, cursor.from());
        }
        for (String mapped : prepare.mapped) {
            TableId table = captured(mapped);
            if (table != null) {
                throw failures.xaPreparedBefore(table, xid, prepare.at, at, cursor.from());
            }
        }
        for (TableId table : prepare.stated) {
            if (filter.matches(table)) {
                throw failures.xaPreparedBefore(table, xid, prepare.at, at, cursor.from());
            }
        }
        if (prepare.unsure) {
            throw failures.xaPreparedUnsure(xid, prepare.at, at, cursor.from());
        }
        LOG.info("XA transaction {} was prepared at {} and changed no captured table", xid, prepare.at);
    }

    /** A table a table map names ({@code db.table}, either may hold dots) that the filter captures. */
    @Nullable
    private TableId captured(String mapped) {
        for (int dot = mapped.indexOf('.'); dot >= 0; dot = mapped.indexOf('.', dot + 1)) {
            String database = mapped.substring(0, dot);
            TableId table = TableId.of(database, database, mapped.substring(dot + 1));
            if (filter.matches(table)) {
                return table;
            }
        }
        return null;
    }
}
