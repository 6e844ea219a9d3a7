package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The server's binlog filters ({@code binlog-do-db}, {@code binlog-ignore-db}): a database they leave
 * out is never written to the binlog, so its tables cannot be captured. In row-based logging they
 * filter by the changed table's database.
 */
final class BinlogFilters {
    private BinlogFilters() {}

    /** Fails naming the captured tables whose database the server does not log. */
    static void requireLogged(Connection c, ServerFlavor flavor, List<TableId> tables) throws SQLException {
        Set<String> only;
        Set<String> ignored;
        try (Statement s = c.createStatement();
                ResultSet rs = BinlogPositions.binlogStatus(s, flavor)) {
            if (!rs.next()) {
                return; // no binlog: the server check says so
            }
            only = names(rs.getString("Binlog_Do_DB"));
            ignored = names(rs.getString("Binlog_Ignore_DB"));
        }
        Set<String> unlogged = new TreeSet<>();
        for (TableId table : tables) {
            if (ignored.contains(table.database()) || !only.isEmpty() && !only.contains(table.database())) {
                unlogged.add(table.database() + "." + table.table());
            }
        }
        if (!unlogged.isEmpty()) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "The server does not write changes of "
                    + String.join(", ", unlogged) + " to its binlog: it is started with "
                    + (only.isEmpty() ? "" : "binlog-do-db=" + String.join(",", only) + " ")
                    + (ignored.isEmpty() ? "" : "binlog-ignore-db=" + String.join(",", ignored) + " ")
                    + "(SHOW MASTER STATUS shows them). Remove the database from the filter in the server's "
                    + "configuration, or exclude these tables.");
        }
    }

    private static Set<String> names(String list) {
        return list == null || list.isBlank() ? Set.of()
                : Arrays.stream(list.split(",")).map(String::trim).filter(n -> !n.isEmpty())
                        .collect(Collectors.toCollection(TreeSet::new));
    }
}
