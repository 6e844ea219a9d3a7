package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.annotation.Nullable;

/**
 * One binlog file's XA transactions, read through {@code SHOW BINLOG EVENTS} a page at a time, as far as a look-up
 * needs and on from there at the next: the prepares (XA_PREPARE events, with what their groups changed) without an
 * outcome after them in the file, and the outcomes ({@code XA COMMIT}, {@code XA ROLLBACK}) of XIDs not prepared
 * before them in the file. A group with an event this does not know (or an incident) is unsure, as is one with a
 * statement whose table cannot be read.
 */
final class XaFileScan {
    private static final Pattern USE = Pattern.compile("use `((?:[^`]|``)*)`; (.*)", Pattern.DOTALL);
    /** Statements: MariaDB's compressed ones ({@code log_bin_compress}), and {@code LOAD DATA}'s as a statement. */
    private static final Set<String> STATEMENTS = Set.of("query", "query_compressed", "execute_load_query");
    /**
     * Events that change no table: a group's rows are in row events ({@code ..._rows...}), after table maps, and
     * its statements are {@link #STATEMENTS}; any other event makes a group unsure.
     */
    private static final Set<String> NO_CHANGE = Set.of("format_desc", "rotate", "stop", "xid", "intvar", "rand",
            "user var", "begin_load_query", "append_block", "delete_file", "transaction_payload", "transaction_context",
            "view_change", "heartbeat", "binlog_checkpoint", "start_encryption");

    private final String file;
    private final Map<String, XaPrepares.Prepare> pending = new HashMap<>();
    private final Set<String> resolvedEarlier = new HashSet<>();
    // the group read so far: the tables its table maps and statements name, or unsure
    private final Set<String> mapped = new LinkedHashSet<>();
    private final Set<TableId> stated = new LinkedHashSet<>();
    private boolean unsure;
    // the next page starts at the last event that begins where it says, past the events read from there: the
    // events of a compressed transaction, listed after their payload event, give the payload's end as theirs
    // (Oracle MySQL 9.7 lists them with Pos and End_log_pos both there, where the next event begins)
    private long from = -1;
    private int atFrom;
    /** The position of the last event read; -1 when none. */
    private long lastRead = -1;
    /** The position of the event a read stopped at, not read; -1 when none. */
    private long stoppedAt = -1;
    /** Whether this read to the end of a file no longer written. */
    private boolean ended;

    XaFileScan(String file) {
        this.file = file;
    }

    /** Whether this read an event at or past {@code before}: one a look-up up to there must not count. */
    boolean readPast(long before) {
        return lastRead >= before;
    }

    /**
     * Reads the events before {@code before} not read yet.
     *
     * @param complete whether the file is no longer written (not the server's last)
     */
    void readTo(Connection c, long before, boolean complete) throws SQLException {
        if (stoppedAt >= before || ended) {
            return;
        }
        String events = "SHOW BINLOG EVENTS IN '" + file.replace("'", "''") + "'";
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
                        stoppedAt = pos;
                        return;
                    }
                    if (rs.getLong("End_log_pos") != pos) { // MariaDB gives 0 inside a group: its events begin there
                        from = pos;
                        atFrom = 0;
                    }
                    atFrom++;
                    lastRead = pos;
                    XaPrepares.eventsRead.incrementAndGet();
                    event(rs.getString("Event_type").toLowerCase(Locale.ROOT), rs.getString("Info"));
                }
            }
            stoppedAt = -1;
            if (read < page) {
                ended = complete; // a file still written may have more
                return;
            }
        }
    }

    /** The prepare of {@code xid} in this file, read so far, with no outcome after it there. */
    @Nullable
    XaPrepares.Prepare pending(String xid) {
        return pending.get(xid);
    }

    /** Whether the file, read so far, holds an outcome of {@code xid} not prepared before it in the file. */
    boolean resolvesEarlier(String xid) {
        return resolvedEarlier.contains(xid);
    }

    private void event(String type, String info) {
        if (type.contains("gtid")) {
            clearGroup(); // a group begins (MariaDB's names XA START in its GTID event)
        } else if (type.equals("table_map")) {
            mapped.add(info.substring(info.indexOf('(') + 1, info.lastIndexOf(')')));
        } else if (STATEMENTS.contains(type)) {
            statement(info);
        } else if (type.equals("xa_prepare")) {
            int at = info.toUpperCase(Locale.ROOT).indexOf("XA PREPARE"); // else XA COMMIT ... ONE PHASE
            if (at >= 0) {
                String xid = XaPrepares.xid(info.substring(at + "XA PREPARE".length()));
                pending.put(xid, new XaPrepares.Prepare(file + ":" + from, mapped, stated, unsure));
            }
            clearGroup();
        } else if (!type.contains("rows") && !NO_CHANGE.contains(type)) {
            unsure = true; // an incident, or an event this does not know
        }
    }

    /**
     * A statement, as {@code SHOW BINLOG EVENTS} shows it ({@code use `db`; INSERT ...}): an XA transaction's
     * outcome, or one of a group's statements, read in the default sql_mode (the event's own is not shown), which
     * makes the group unsure when its table cannot be read.
     */
    private void statement(String info) {
        Matcher use = USE.matcher(info);
        String database = use.matches() ? use.group(1).replace("``", "`") : null;
        String sql = use.matches() ? use.group(2) : info;
        String upper = sql.trim().toUpperCase(Locale.ROOT);
        if (upper.startsWith("XA COMMIT") || upper.startsWith("XA ROLLBACK")) {
            String xid = XaPrepares.xid(upper.substring(upper.startsWith("XA COMMIT") ? 9 : 11));
            if (!xid.endsWith("ONEPHASE") && pending.remove(xid) == null) {
                resolvedEarlier.add(xid);
            }
        } else if (!upper.startsWith("XA ")) { // XA START, XA END
            TableId table = MySqlDdl.dmlTable(sql, database, SqlMode.DEFAULT);
            if (table == null) {
                unsure = true;
            } else if (table != MySqlDdl.NOT_DML) {
                stated.add(table);
            }
        }
    }

    private void clearGroup() {
        mapped.clear();
        stated.clear();
        unsure = false;
    }
}
