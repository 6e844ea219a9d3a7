package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.annotation.Nullable;

/**
 * Finds XA transactions' prepares in the binlog files the server holds, for one stream: the group that ends with
 * the XA_PREPARE event of an XID, and the tables that group's table maps and statements name. Read from the file of
 * a commit back to the oldest file ({@link XaFileScan}); each file is read once for the stream, the commit's own
 * as far as the commit, and what it holds is kept: the prepares still pending at its end and the outcomes of
 * prepares before it, a few XIDs at most where XA transactions are short.
 */
final class XaPrepares {
    /** Events per {@code SHOW BINLOG EVENTS}: a binlog file holds up to millions. Tests only may lower it. */
    static volatile int page = 10_000;
    /** The events all look-ups read, for tests. */
    static final AtomicLong eventsRead = new AtomicLong();

    private final Connection connection;
    private final Map<String, XaFileScan> files = new HashMap<>();

    XaPrepares(Connection connection) {
        this.connection = connection;
    }

    /**
     * A prepare: where its XA_PREPARE event is, the tables its group's table maps name ({@code db.table}, as events
     * name them), and those its statements change (a session's {@code binlog_format} other than ROW), or unsure
     * when one of its statements may change a table it does not name.
     */
    static final class Prepare {
        final String at;
        final Set<String> mapped;
        final Set<TableId> stated;
        final boolean unsure;

        Prepare(String at, Set<String> mapped, Set<TableId> stated, boolean unsure) {
            this.at = at;
            this.mapped = Set.copyOf(mapped);
            this.stated = Set.copyOf(stated);
            this.unsure = unsure;
        }
    }

    /**
     * The prepare of {@code xid} (as {@link #xid(String)} writes it) still pending at {@code file}:{@code before},
     * or null when none of the files the server holds up to there has one.
     */
    @Nullable
    Prepare find(String xid, String file, long before) throws SQLException {
        List<String> names = BinlogRetention.binlogFiles(connection);
        int last = names.indexOf(file);
        if (last < 0) {
            return null; // not the server's any more: where the commit was cannot be told
        }
        for (int i = last; i >= 0; i--) {
            String name = names.get(i);
            long bound = name.equals(file) ? before : Long.MAX_VALUE;
            XaFileScan scan = files.get(name);
            if (scan == null || scan.readPast(bound)) {
                scan = new XaFileScan(name);
                files.put(name, scan);
            }
            scan.readTo(connection, bound, i < names.size() - 1);
            Prepare prepare = scan.pending(xid);
            if (prepare != null) {
                return prepare;
            }
            if (scan.resolvesEarlier(xid)) {
                return null; // its last prepare before this file had its outcome here
            }
        }
        return null;
    }

    /**
     * An XID as the server writes it in statements ({@code X'6131',X'',1}), in one spelling: without blanks, in
     * upper case.
     */
    static String xid(String written) {
        return written.replaceAll("\\s", "").toUpperCase(Locale.ROOT);
    }

    /** An XID from its parts, as {@link #xid(String)} writes it. */
    static String xid(int formatId, byte[] gtridAndBqual, int gtridLength) {
        StringBuilder sb = new StringBuilder("X'");
        for (int i = 0; i < gtridAndBqual.length; i++) {
            if (i == gtridLength) {
                sb.append("',X'");
            }
            sb.append(String.format("%02X", gtridAndBqual[i] & 0xff));
        }
        if (gtridLength == gtridAndBqual.length) {
            sb.append("',X'");
        }
        return sb.append("',").append(Integer.toUnsignedString(formatId)).toString(); // the server's is unsigned
    }
}
