package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.annotation.Nullable;

/**
 * Finds an XA transaction's prepare in the binlog files the server holds, through {@code SHOW BINLOG EVENTS}:
 * the group that ends with the XA_PREPARE event of its XID, and the tables that group's table maps and
 * statements name. Read from the file of a commit back to the oldest file, a page of events at a time.
 */
final class XaPrepares {
    /** Events per {@code SHOW BINLOG EVENTS}: a binlog file holds up to millions. Tests only may lower it. */
    static volatile int page = 10_000;

    private XaPrepares() {}

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

        Prepare(String at, Group group) {
            this.at = at;
            this.mapped = Set.copyOf(group.mapped);
            this.stated = Set.copyOf(group.stated);
            this.unsure = group.unsure;
        }
    }

    /** What the events of a group read so far change. */
    private static final class Group {
        final Set<String> mapped = new LinkedHashSet<>();
        final Set<TableId> stated = new LinkedHashSet<>();
        boolean unsure;

        void clear() {
            mapped.clear();
            stated.clear();
            unsure = false;
        }

        /**
         * A statement of the group, as {@code SHOW BINLOG EVENTS} shows it ({@code use `db`; INSERT ...}), read in
         * the default sql_mode (the event's own is not shown): a statement whose table cannot be read makes it unsure.
         */
        void statement(String info) {
            Matcher use = USE.matcher(info);
            String database = use.matches() ? use.group(1).replace("``", "`") : null;
            String sql = use.matches() ? use.group(2) : info;
            if (sql.toUpperCase(Locale.ROOT).startsWith("XA ")) {
                return; // XA START, XA END
            }
            TableId table = MySqlDdl.dmlTable(sql, database, SqlMode.DEFAULT);
            if (table == null) {
                unsure = true;
            } else if (table != MySqlDdl.NOT_DML) {
                stated.add(table);
            }
        }
    }

    private static final Pattern USE = Pattern.compile("use `((?:[^`]|``)*)`; (.*)", Pattern.DOTALL);

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
        Group group = new Group();
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
                        group.mapped.add(info.substring(info.indexOf('(') + 1, info.lastIndexOf(')')));
                    } else if (type.equals("query")) {
                        group.statement(info);
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
        return sb.append("',").append(Integer.toUnsignedString(formatId)).toString(); // the server's is unsigned
    }
}
