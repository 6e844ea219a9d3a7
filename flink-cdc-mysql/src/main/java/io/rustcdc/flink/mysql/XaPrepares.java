package io.rustcdc.flink.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.annotation.Nullable;

/**
 * Finds an XA transaction's prepare in the binlog files the server holds, through {@code SHOW BINLOG EVENTS}:
 * the group that ends with the XA_PREPARE event of its XID, and the tables that group's table maps name. Read
 * from the file of a commit back to the oldest file, a page of events at a time.
 */
final class XaPrepares {
    /** Events per {@code SHOW BINLOG EVENTS}: a binlog file holds up to millions. Tests only may lower it. */
    static volatile int page = 10_000;

    private XaPrepares() {}

    /** A prepare: where its XA_PREPARE event is, and the tables its group maps, as events name them ({@code db.table}). */
    static final class Prepare {
        final String at;
        final List<String> tables;

        Prepare(String at, List<String> tables) {
            this.at = at;
            this.tables = List.copyOf(tables);
        }
    }

    /**
     * The last prepare of {@code xid} (as {@link #xid(String)} writes it) before {@code file}:{@code before}, or
     * null when none of the files the server holds up to there has one.
     */
    @Nullable
    static Prepare find(Connection c, String xid, String file, long before) throws SQLException {
        List<String> files = BinlogRetention.binlogFiles(c);
        int last = files.indexOf(file);
        for (int i = last < 0 ? files.size() - 1 : last; i >= 0; i--) {
            Prepare found = findIn(c, files.get(i), xid, files.get(i).equals(file) ? before : Long.MAX_VALUE);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    @Nullable
    private static Prepare findIn(Connection c, String file, String xid, long before) throws SQLException {
        String events = "SHOW BINLOG EVENTS IN '" + file.replace("'", "''") + "'";
        Prepare found = null;
        List<String> group = new ArrayList<>();
        // the next page starts at the last event that begins where it says, past the events listed from there: the
        // events of a compressed transaction, listed after their payload event, give the payload's end as theirs
        // (Oracle MySQL 9.7 lists them with Pos and End_log_pos both there, where the next event begins)
        long from = -1;
        int atFrom = 0;
        int page = XaPrepares.page;
        while (true) {
            int read = 0;
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(from < 0 ? events + " LIMIT " + page
                            : events + " FROM " + from + " LIMIT " + atFrom + ", " + page)) {
                while (rs.next()) {
                    read++;
                    long pos = rs.getLong("Pos");
                    if (pos >= before) {
                        return found;
                    }
                    if (rs.getLong("End_log_pos") != pos) { // MariaDB gives 0 inside a group: its events begin there
                        from = pos;
                        atFrom = 0;
                    }
                    atFrom++;
                    String type = rs.getString("Event_type").toLowerCase(Locale.ROOT);
                    String info = rs.getString("Info");
                    if (type.contains("gtid")) {
                        group.clear(); // a group begins (MariaDB's names XA START in its GTID event)
                    } else if (type.equals("table_map")) {
                        group.add(info.substring(info.indexOf('(') + 1, info.lastIndexOf(')')));
                    } else if (type.equals("xa_prepare")) {
                        if (xid(info.substring(info.toUpperCase(Locale.ROOT).indexOf("PREPARE") + "PREPARE".length()))
                                .equals(xid)) {
                            found = new Prepare(file + ":" + from, group);
                        }
                        group.clear();
                    }
                }
            }
            if (read < page) {
                return found;
            }
        }
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
        return sb.append("',").append(formatId).toString();
    }
}
