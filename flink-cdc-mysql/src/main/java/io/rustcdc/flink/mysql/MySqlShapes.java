package io.rustcdc.flink.mysql;

import io.rustcdc.flink.mysql.types.CatalogTypes;
import io.rustcdc.flink.mysql.types.MySqlColumn;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.RowShape;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.Nullable;

/**
 * Row shapes from the catalogue: each column's name, its declared type exactly as
 * {@code information_schema.COLUMNS.COLUMN_TYPE} gives it ({@code int(10) unsigned},
 * {@code decimal(65,30)}, {@code enum('a','b')}) with a text column's character set unless it is utf8mb4
 * ({@code varchar(50) character set latin1}: {@link ColumnCharsets}), its nullability, in ordinal order, and the primary
 * key in key order. The shape's schema is the MySQL database, and so is a table id's schema (a MySQL
 * table is database + table; filters name it {@code database.table}).
 */
final class MySqlShapes {
    private MySqlShapes() {}

    /**
     * The flavor of the server {@code c} is connected to, from the version its handshake gave the
     * driver (no query).
     */
    static ServerFlavor flavor(Connection c) throws SQLException {
        java.sql.DatabaseMetaData meta = c.getMetaData();
        return "MariaDB".equalsIgnoreCase(meta.getDatabaseProductName()) ? ServerFlavor.MARIADB
                : ServerFlavor.ofVersion(meta.getDatabaseProductVersion());
    }

    static RowShape read(Connection c, String database, String table) throws SQLException {
        return describe(c, database, table).description.shape();
    }

    /**
     * The table's shape and how each of its columns decodes; a column that cannot decode exactly
     * fails, and so does a system-versioned table ({@link #requireUnversioned}).
     */
    static MySqlTable describe(Connection c, String database, String table) throws SQLException {
        return describe(c, database, table, tableType(c, database, table));
    }

    /** As {@link #describe(Connection, String, String)}, with the table's type already read. */
    static MySqlTable describe(Connection c, String database, String table, @Nullable String tableType)
            throws SQLException {
        requireUnversioned(tableType, database, table);
        List<RowShape.Column> columns = new ArrayList<>();
        List<MySqlColumn> types = new ArrayList<>();
        List<String> collations = new ArrayList<>();
        // from the driver's handshake, no query: a type both servers name alike may differ (MariaDB's VECTOR)
        boolean mariaDb = flavor(c) == ServerFlavor.MARIADB;
        try (PreparedStatement s = c.prepareStatement("SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, CHARACTER_SET_NAME, "
                + "COLLATION_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? "
                + "ORDER BY ORDINAL_POSITION")) {
            s.setString(1, database);
            s.setString(2, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    // the set in the type (ColumnCharsets): a conversion of the column is a change of its type
                    columns.add(RowShape.Column.of(rs.getString(1), ColumnCharsets.shapeType(rs.getString(2), rs.getString(4)),
                            "YES".equals(rs.getString(3))));
                    types.add(CatalogTypes.column(database + "." + table, rs.getString(1), rs.getString(2), rs.getString(4),
                            mariaDb));
                    // the key order reads it (MySqlKeyOrder): text of some collations is split into chunks
                    collations.add(MySqlKeyOrder.collationName(rs.getString(6).toLowerCase(java.util.Locale.ROOT),
                            rs.getString(5)));
                }
            }
        }
        if (columns.isEmpty()) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "Table " + database + "." + table + " does not "
                    + "exist, or the user may not read it (the catalogue shows only tables a user has privileges on): "
                    + "GRANT SELECT ON " + database + "." + table + " TO <the source's user>;");
        }
        List<String> key = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE "
                + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION")) {
            s.setString(1, database);
            s.setString(2, table);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    key.add(rs.getString(1));
                }
            }
        }
        return new MySqlTable(TableId.of(database, database, table), RowShape.of(database, table, columns, key), types,
                collations);
    }

    /**
     * Fails for a MariaDB system-versioned table: the binlog holds its history rows, a delete is
     * logged as an update that closes the row and an update adds a history row, none of which is a
     * change of the table as a query sees it; the catalogue hides the row_start and row_end columns
     * the binlog and the primary key carry. Nothing for a table that does not exist.
     */
    static void requireUnversioned(@Nullable String tableType, String database, String table) {
        if ("SYSTEM VERSIONED".equalsIgnoreCase(tableType)) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "Table " + database + "." + table + " is "
                    + "system-versioned (WITH SYSTEM VERSIONING): MariaDB logs its deletes and updates as "
                    + "changes to history rows, which this source does not turn into the table's changes. "
                    + "Exclude the table from the source, or drop its versioning (ALTER TABLE " + database
                    + "." + table + " DROP SYSTEM VERSIONING).");
        }
    }

    /** {@code information_schema.TABLES.TABLE_TYPE}: BASE TABLE, SYSTEM VERSIONED, SEQUENCE, …; null when absent. */
    @Nullable
    static String tableType(Connection c, String database, String table) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT TABLE_TYPE FROM information_schema.TABLES "
                + "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
            s.setString(1, database);
            s.setString(2, table);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }
}
