package io.rustcdc.flink.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * A column the DDL-under-writers tests ({@link ColumnDdlUnderWriters}, {@link TableDdlUnderWriters}) give a
 * table, with the random values their writers put in it, and the table's rows as the oracle compares them.
 */
record DdlColumn(String name, String type) {

    /** A random SQL literal of this column's type, NULL one time in eight. */
    String value(Random r) {
        if (r.nextInt(8) == 0) {
            return "NULL";
        }
        switch (type) {
            case "INT":
                return Integer.toString(r.nextInt(2_000_000) - 1_000_000);
            case "BIGINT":
                return Long.toString(3_000_000_000L + r.nextInt(1_000_000_000));
            case "VARCHAR(20)":
                return "'v" + r.nextInt(1_000_000) + "'";
            default:
                return "'w" + Long.toHexString(r.nextLong()) + Long.toHexString(r.nextLong()) + "'"; // up to 33 characters
        }
    }

    /** The rows of {@code table} now, keyed by its {@code id} column: key text to column (lower case) to value text. */
    static Map<String, Map<String, String>> rows(Connection c, String table) throws SQLException {
        Map<String, Map<String, String>> rows = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
            ResultSetMetaData meta = rs.getMetaData();
            while (rs.next()) {
                Map<String, String> row = new LinkedHashMap<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    row.put(meta.getColumnLabel(i).toLowerCase(Locale.ROOT), rs.getString(i));
                }
                rows.put(row.get("id"), row);
            }
        }
        return rows;
    }
}
