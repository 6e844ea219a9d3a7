package io.rustcdc.flink.mysql.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Turns the shared server's binlog compression on for a test class, before its {@code @BeforeAll}
 * methods, and back to what it was after it: {@code binlog_transaction_compression} on Oracle MySQL
 * (new sessions compress each transaction into a {@code Transaction_payload_event}), {@code
 * log_bin_compress} on MariaDB with {@code log_bin_compress_min_len} at its least (10 bytes), so that
 * nearly every query and row event is compressed. Both are global settings of a server other test
 * classes use, one after another in the same JVM: hence the restore. After the class it checks that
 * the binlog it wrote really holds compressed events, so a class run with it cannot pass by reading
 * plain ones.
 *
 * <pre>{@code
 * @ExtendWith({MySqlExtension.class, CompressedBinlog.class})
 * class MyITCase { ... }
 * }</pre>
 */
public final class CompressedBinlog implements BeforeAllCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(CompressedBinlog.class);

    @Override
    public void beforeAll(ExtensionContext context) throws SQLException {
        MySqlServer server = MySqlServer.shared();
        Saved saved = new Saved(server.isMariaDb(), binlogEnd(server));
        try (Connection c = server.admin("");
                Statement s = c.createStatement()) {
            if (saved.mariaDb) {
                saved.compress = value(s, "SELECT @@GLOBAL.log_bin_compress");
                saved.minLength = value(s, "SELECT @@GLOBAL.log_bin_compress_min_len");
                s.execute("SET GLOBAL log_bin_compress = ON");
                s.execute("SET GLOBAL log_bin_compress_min_len = 10");
            } else {
                saved.compress = value(s, "SELECT @@GLOBAL.binlog_transaction_compression");
                s.execute("SET GLOBAL binlog_transaction_compression = ON");
            }
        }
        context.getStore(NAMESPACE).put(Saved.class, saved);
    }

    @Override
    public void afterAll(ExtensionContext context) throws SQLException {
        Saved saved = context.getStore(NAMESPACE).get(Saved.class, Saved.class);
        if (saved == null) {
            return;
        }
        MySqlServer server = MySqlServer.shared();
        try (Connection c = server.admin("");
                Statement s = c.createStatement()) {
            if (saved.mariaDb) {
                s.execute("SET GLOBAL log_bin_compress = " + onOff(saved.compress));
                s.execute("SET GLOBAL log_bin_compress_min_len = " + Integer.parseInt(saved.minLength));
            } else {
                s.execute("SET GLOBAL binlog_transaction_compression = " + onOff(saved.compress));
            }
        }
        if (!compressedEventSince(server, saved.from)) {
            throw new AssertionError("The binlog written while " + context.getDisplayName() + " ran holds no compressed "
                    + "event: its tests read plain events and prove nothing about compressed ones");
        }
    }

    /** The binlog's end: file and offset. */
    private static String[] binlogEnd(MySqlServer server) throws SQLException {
        try (Connection c = server.admin("");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(server.binaryLogStatusStatement())) {
            rs.next();
            return new String[] {rs.getString(1), rs.getString(2)};
        }
    }

    /** Whether a compressed event ({@code Transaction_payload}, MariaDB's {@code *_compressed*}) lies after {@code from}. */
    private static boolean compressedEventSince(MySqlServer server, String[] from) throws SQLException {
        try (Connection c = server.admin("");
                Statement s = c.createStatement()) {
            List<String> files = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
                while (rs.next()) {
                    if (rs.getString(1).compareTo(from[0]) >= 0) {
                        files.add(rs.getString(1));
                    }
                }
            }
            for (String file : files) {
                String sql = "SHOW BINLOG EVENTS IN '" + file + "'" + (file.equals(from[0]) ? " FROM " + from[1] : "");
                try (ResultSet rs = s.executeQuery(sql)) {
                    while (rs.next()) {
                        String type = rs.getString("Event_type").toLowerCase(Locale.ROOT);
                        if (type.contains("compressed") || type.contains("payload")) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    private static String value(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static String onOff(String value) {
        return "1".equals(value) || "ON".equalsIgnoreCase(value) ? "ON" : "OFF";
    }

    private static final class Saved {
        final boolean mariaDb;
        final String[] from;
        String compress;
        String minLength;

        Saved(boolean mariaDb, String[] from) {
            this.mariaDb = mariaDb;
            this.from = from;
        }
    }
}
