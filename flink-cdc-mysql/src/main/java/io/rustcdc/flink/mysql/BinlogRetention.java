package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks, on resume, that the server still holds every change a position has not consumed, and
 * otherwise fails naming what was purged, instead of the server's generic "could not find first log
 * file". The question is always "has the server purged only what I already read", never the inverse
 * ("is my position within what the server executed"), which answers yes in exactly the gap case.
 */
final class BinlogRetention {
    private static final String REMEDY = " Those changes are gone: restart the source without its state so that the "
            + "tables are read again, and keep binlogs longer than the longest outage (binlog_expire_logs_seconds).";

    private BinlogRetention() {}

    /**
     * The binlog file a file/offset position points into is still on {@code server} (named in the
     * failure). A file whose name has another stem than every file on the server was written by
     * another server: the position was read on one server and resumes on another (a failover, a move
     * behind the same address), where a file and offset mean nothing.
     */
    static void requireFile(Connection c, String server, String file, long offset) throws SQLException {
        List<String> files = binlogFiles(c);
        if (files.contains(file)) {
            return;
        }
        String at = " (position " + file + ":" + offset + ")";
        if (!files.isEmpty() && files.stream().noneMatch(f -> stem(f).equals(stem(file)))) {
            throw new CdcException(CdcException.Kind.POSITION_LOST, "Binlog file " + file + at + " is not on " + server
                    + ", whose binlog files are " + stem(files.get(0)) + ".*: the position was read on another server "
                    + "(a failover to a replica, or another server at this address), and a binlog file and offset "
                    + "belong to the server that wrote them. Resume by GTIDs (a position taken with GTIDs resumes on "
                    + "a replica), or restart the source without its state so that the tables are read again.");
        }
        throw new CdcException(CdcException.Kind.POSITION_LOST, "Binlog file " + file + at + " is no longer on "
                + server + "; the oldest it keeps is " + (files.isEmpty() ? "none" : files.get(0)) + "." + REMEDY);
    }

    /** {@code mariadb-bin} of {@code mariadb-bin.000003}. */
    private static String stem(String file) {
        int dot = file.lastIndexOf('.');
        return dot < 0 ? file : file.substring(0, dot);
    }

    /** Oracle MySQL: everything in {@code @@gtid_purged} is in {@code executed}. */
    static void requireMySqlGtids(Connection c, MySqlGtidSet executed) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "SELECT GTID_SUBSET(@@GLOBAL.gtid_purged, ?), GTID_SUBTRACT(@@GLOBAL.gtid_purged, ?)")) {
            s.setString(1, executed.toString());
            s.setString(2, executed.toString());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                if (rs.getInt(1) != 1) {
                    throw new CdcException(CdcException.Kind.POSITION_LOST, "The server purged transactions this "
                            + "source never read: " + rs.getString(2).replaceAll("\\s", "") + " (the source's position "
                            + "is " + executed + ")." + REMEDY);
                }
            }
        }
    }

    /**
     * Oracle MySQL: the GTIDs of {@code executed} the server does not hold, or null when it holds
     * them all. A replica behind the server a position was read on lacks some; the server would
     * then send nothing until it has them (it skips whatever the reader claims to have), and forever
     * if it diverged, so a resume fails instead.
     */
    @javax.annotation.Nullable
    static String mysqlGtidsNotHeld(Connection c, MySqlGtidSet executed) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT GTID_SUBTRACT(?, @@GLOBAL.gtid_executed)")) {
            s.setString(1, executed.toString());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                String missing = rs.getString(1).replaceAll("\\s", "");
                return missing.isEmpty() ? null : missing;
            }
        }
    }

    /**
     * MariaDB: for each domain, the GTID state at the start of the oldest binlog file (its
     * Gtid_list event) is not past the position's GTID of that domain.
     */
    static void requireMariaDbGtids(Connection c, MariaDbGtidPosition position) throws SQLException {
        List<String> files = binlogFiles(c);
        if (files.isEmpty()) {
            throw new CdcException(CdcException.Kind.POSITION_LOST, "The server keeps no binlog files." + REMEDY);
        }
        MariaDbGtidPosition atStart = gtidListAtStartOf(c, files.get(0));
        List<String> purged = new ArrayList<>();
        for (long domain : atStart.domains()) {
            String held = position.gtidOf(domain);
            if (held == null) {
                purged.add("domain " + domain + " up to " + atStart.gtidOf(domain)
                        + " (the position has no GTID of this domain)");
            } else if (Long.compareUnsigned(position.sequence(domain), atStart.sequence(domain)) < 0) {
                purged.add("domain " + domain + " after " + held + " up to " + atStart.gtidOf(domain));
            }
        }
        if (!purged.isEmpty()) {
            throw new CdcException(CdcException.Kind.POSITION_LOST, "The server purged transactions this source never "
                    + "read (the oldest binlog file kept, " + files.get(0) + ", starts after them): "
                    + String.join("; ", purged) + ". The source's position is " + position + "." + REMEDY);
        }
    }

    private static MariaDbGtidPosition gtidListAtStartOf(Connection c, String file) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW BINLOG EVENTS IN '" + file.replace("'", "''") + "' LIMIT 4")) {
            while (rs.next()) {
                if ("Gtid_list".equalsIgnoreCase(rs.getString("Event_type"))) {
                    String info = rs.getString("Info"); // [0-1-12345,1-2-7]
                    return MariaDbGtidPosition.parse(info.replaceAll("[\\[\\]]", ""));
                }
            }
        }
        throw new IllegalStateException("No Gtid_list event at the start of MariaDB binlog file " + file);
    }

    /** {@code SHOW BINARY LOGS}: the files' names, oldest first. */
    static List<String> binlogFiles(Connection c) throws SQLException {
        List<String> files = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
            while (rs.next()) {
                files.add(rs.getString(1));
            }
        }
        return files;
    }
}
