package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Checks, before anything is read, that the server is the flavor the source was configured for and
 * that its binlog and the user's grants allow exact capture. Every unsuitable setting would
 * otherwise corrupt data silently rather than fail, so each is an error naming the setting, the
 * value found and the statement that fixes it; all are reported at once.
 */
final class MySqlPrerequisites {
    private MySqlPrerequisites() {}

    static void check(Connection c, ServerFlavor flavor) throws SQLException {
        requireFlavor(c, flavor);
        Map<String, String> vars = variables(c);
        List<String> problems = new ArrayList<>();
        if (!"ON".equalsIgnoreCase(vars.get("log_bin"))) {
            problems.add("log_bin is " + vars.get("log_bin") + ": the server keeps no binary log, so there is nothing "
                    + "to capture. Start the server with binary logging on (--log-bin); it cannot be changed at run time.");
        }
        expect(problems, vars, "binlog_format", "ROW", "statement-based logging does not say which rows changed");
        expect(problems, vars, "binlog_row_image", "FULL", "updates would carry only some columns, and an upsert "
                + "of such a row would erase the others");
        if (vars.containsKey("binlog_row_metadata")) {
            expect(problems, vars, "binlog_row_metadata", "FULL", "the binlog would carry no column names, no "
                    + "primary key and no ENUM/SET labels");
        }
        // compressed binlogs (log_bin_compress on MariaDB, binlog_transaction_compression on MySQL) are decoded
        String valueOptions = vars.get("binlog_row_value_options");
        if (valueOptions != null && !valueOptions.isEmpty()) {
            problems.add("binlog_row_value_options is '" + valueOptions + "': JSON updates would be written as diffs, "
                    + "which cannot be applied exactly. SET GLOBAL binlog_row_value_options = '';");
        }
        // Oracle MySQL's name since 8.0.26; MariaDB's (and older MySQL's) is log_slave_updates
        String logsReplicated = flavor == ServerFlavor.MYSQL && vars.containsKey("log_replica_updates")
                ? "log_replica_updates" : "log_slave_updates";
        if ("OFF".equalsIgnoreCase(vars.get(logsReplicated)) && replicating(c, flavor)) {
            problems.add(logsReplicated + " is 'OFF' on a server that replicates: the changes it receives from its "
                    + "primary are not written to its own binlog, so this source would miss them. Start it with "
                    + logsReplicated + " = ON (it cannot be changed at run time), or read from its primary.");
        }
        String grantProblem = missingGrants(c, flavor);
        if (grantProblem != null) {
            problems.add(grantProblem);
        }
        if (!problems.isEmpty()) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "The " + flavor + " server is not set up for "
                    + "change capture:\n- " + String.join("\n- ", problems) + "\nPersist SET GLOBAL settings in the "
                    + "server's configuration file so that they survive a restart; binlog settings apply to events "
                    + "written after the change.");
        }
    }

    private static void expect(List<String> problems, Map<String, String> vars, String name, String required, String why) {
        String value = vars.get(name);
        if (!required.equalsIgnoreCase(value)) {
            problems.add(name + " is '" + value + "' where " + required + " is required: " + why + ". SET GLOBAL "
                    + name + " = '" + required + "';");
        }
    }

    /** What the user lacks of REPLICATION SLAVE and REPLICATION CLIENT (MariaDB: BINLOG MONITOR), or null. */
    private static String missingGrants(Connection c, ServerFlavor flavor) throws SQLException {
        StringBuilder all = new StringBuilder();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GRANTS")) {
            while (rs.next()) {
                all.append(rs.getString(1).toUpperCase(Locale.ROOT)).append('\n');
            }
        }
        String grants = all.toString();
        boolean everything = grants.contains("ALL PRIVILEGES ON *.*");
        List<String> missing = new ArrayList<>();
        if (!everything && !grants.contains("REPLICATION SLAVE")) {
            missing.add("REPLICATION SLAVE");
        }
        if (!everything && !grants.contains("REPLICATION CLIENT") && !grants.contains("BINLOG MONITOR")
                && !grants.contains("SUPER")) {
            missing.add("REPLICATION CLIENT");
        }
        if (missing.isEmpty()) {
            return null;
        }
        String user = single(c, "SELECT CURRENT_USER()");
        String grantee = "'" + user.replaceFirst("@.*$", "") + "'@'" + user.replaceFirst("^.*@", "") + "'";
        return "the user " + grantee + " lacks " + String.join(" and ", missing) + ", which reading the binlog "
                + "needs: GRANT " + String.join(", ", missing) + " ON *.* TO " + grantee + ";"
                + (flavor == ServerFlavor.MARIADB ? " (REPLICATION CLIENT is BINLOG MONITOR on MariaDB 10.5+)" : "");
    }

    /** The server is the flavor the source was configured for: checked before any flavor's own query. */
    static void requireFlavor(Connection c, ServerFlavor flavor) throws SQLException {
        String version = single(c, "SELECT @@version");
        ServerFlavor actual = ServerFlavor.ofVersion(version);
        if (actual != flavor) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "The server is " + actual + " (version " + version
                    + ") but the source is configured for " + flavor + ": their binlog positions and GTIDs differ "
                    + "and are never mixed. Use '" + actual.connectorName() + "' (ServerFlavor." + actual + ").");
        }
    }

    private static Map<String, String> variables(Connection c) throws SQLException {
        Map<String, String> vars = new HashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL VARIABLES WHERE Variable_name IN ('log_bin', "
                        + "'binlog_format', 'binlog_row_image', 'binlog_row_metadata', 'binlog_row_value_options', "
                        + "'log_slave_updates', 'log_replica_updates')")) {
            while (rs.next()) {
                vars.put(rs.getString(1).toLowerCase(Locale.ROOT), rs.getString(2));
            }
        }
        return vars;
    }

    /**
     * Whether the server runs replication threads now: MariaDB's {@code Slaves_running} status, Oracle
     * MySQL's replication channels in performance_schema whose receiver is on or connecting (a primary that
     * cannot be reached now, or a connection over TLS still being made) or whose applier is on.
     */
    private static boolean replicating(Connection c, ServerFlavor flavor) throws SQLException {
        String sql = flavor == ServerFlavor.MARIADB ? "SHOW GLOBAL STATUS LIKE 'Slaves_running'"
                : "SELECT 'channels', (SELECT COUNT(*) FROM performance_schema.replication_connection_status "
                        + "WHERE SERVICE_STATE IN ('ON', 'CONNECTING')) + (SELECT COUNT(*) FROM "
                        + "performance_schema.replication_applier_status WHERE SERVICE_STATE = 'ON')";
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() && !"0".equals(rs.getString(2));
        }
    }

    private static String single(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
