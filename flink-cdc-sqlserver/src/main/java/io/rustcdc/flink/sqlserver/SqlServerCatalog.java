package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.sqlserver.stream.CaptureInstance;
import io.rustcdc.flink.sqlserver.types.SqlServerColumn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;

/**
 * Reads the catalogue: tables, their columns (by system type: an alias type as its base type, a CLR
 * type, which has no system type name, by its own) and primary keys ({@code sys.columns}, {@code
 * sys.indexes}), and the capture instances of {@code <cdc schema>.change_tables} with the columns each
 * captures (its change table's own {@code sys.columns}, so a row carries the shape it was captured with).
 */
final class SqlServerCatalog {
    private static final String COLUMNS = "SELECT c.name, COALESCE(TYPE_NAME(c.system_type_id), TYPE_NAME(c.user_type_id)), "
            + "c.max_length, c.precision, "
            + "c.scale, c.is_nullable, c.collation_name FROM sys.columns c WHERE c.object_id = ? ";

    private SqlServerCatalog() {}

    /** The user tables of the database (not those of the CDC schema), by schema and name. */
    static List<TableId> tables(Connection c, String database, String cdcSchema) throws SQLException {
        List<TableId> tables = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT s.name, t.name FROM sys.tables t JOIN sys.schemas s "
                + "ON s.schema_id = t.schema_id WHERE t.is_ms_shipped = 0 AND s.name <> ? ORDER BY 1, 2")) {
            s.setString(1, cdcSchema);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    tables.add(TableId.of(database, rs.getString(1), rs.getString(2)));
                }
            }
        }
        return tables;
    }

    /** The table's columns in order and its primary key; fails naming a column whose type is not decoded. */
    static SqlServerTable describe(Connection c, TableId table) throws SQLException {
        SqlServerTable described = describeIfExists(c, table);
        if (described == null) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "Table " + name(table) + " does not exist in "
                    + "database " + table.database() + " (or the user may not see it)");
        }
        return described;
    }

    /** As {@link #describe}; null when no table has that name (or the user may not see it). */
    @Nullable
    static SqlServerTable describeIfExists(Connection c, TableId table) throws SQLException {
        Integer id = objectId(c, table);
        if (id == null) {
            return null;
        }
        List<String> key = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT col.name FROM sys.indexes i JOIN sys.index_columns ic "
                + "ON ic.object_id = i.object_id AND ic.index_id = i.index_id JOIN sys.columns col ON col.object_id = "
                + "ic.object_id AND col.column_id = ic.column_id WHERE i.object_id = ? AND i.is_primary_key = 1 "
                + "ORDER BY ic.key_ordinal")) {
            s.setInt(1, id);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    key.add(rs.getString(1));
                }
            }
        }
        return columns(c, table, id, key, COLUMNS + "ORDER BY c.column_id");
    }

    /**
     * The capture instance's columns as its change table declares them (its {@code __$} columns left
     * out), so that a row carries the types it was captured with; the nullability of the table's
     * column of that name, and a rowversion column as the table declares it (a change table holds it
     * as {@code binary(8)}).
     */
    static SqlServerTable describeInstance(Connection c, CaptureInstance instance, SqlServerTable table)
            throws SQLException {
        SqlServerTable captured = columns(c, instance.table(), instance.changeTable(),
                table.description.shape().primaryKey(), COLUMNS + "AND c.name NOT LIKE '[_][_]$%' ORDER BY c.column_id");
        List<SqlServerColumn> columns = new ArrayList<>();
        List<String> collations = new ArrayList<>();
        for (int i = 0; i < captured.columns.size(); i++) {
            SqlServerColumn column = captured.columns.get(i);
            SqlServerColumn declared = table.find(column.name());
            if (declared != null && declared.dataType().equals("rowversion")) {
                columns.add(declared);
            } else {
                columns.add(declared == null ? column : column.withNullability(declared));
            }
            collations.add(captured.description.collation(i));
        }
        return new SqlServerTable(instance.table(), table.objectId, columns, table.description.shape().primaryKey(),
                collations);
    }

    private static SqlServerTable columns(Connection c, TableId table, int objectId, List<String> key, String sql)
            throws SQLException {
        List<SqlServerColumn> columns = new ArrayList<>();
        List<String> collations = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setInt(1, objectId);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    columns.add(SqlServerColumn.of(name(table), rs.getString(1), rs.getString(2), rs.getInt(3),
                            rs.getInt(4), rs.getInt(5), rs.getBoolean(6)));
                    collations.add(rs.getString(7));
                }
            }
        }
        return new SqlServerTable(table, objectId, columns, key, collations);
    }

    @Nullable
    static Integer objectId(Connection c, TableId table) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT OBJECT_ID(?, 'U')")) {
            s.setString(1, SqlServerSql.qualified(table));
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                int id = rs.getInt(1);
                return rs.wasNull() ? null : id;
            }
        }
    }

    /** One row of {@code change_tables}: the instance, when it was created, and its gating role (null when none). */
    static final class InstanceRow {
        final CaptureInstance instance;
        final Instant created;
        @Nullable final String role;

        InstanceRow(CaptureInstance instance, Instant created, @Nullable String role) {
            this.instance = instance;
            this.created = created;
            this.role = role;
        }
    }

    /**
     * Every capture instance, an older one of a table with two {@linkplain CaptureInstance#supersededAt
     * superseded} at the newer one's floor. An instance the capture job has not started yet (no floor)
     * is left out until it has one.
     */
    static List<InstanceRow> instances(Connection c, String database, String cdcSchema) throws SQLException {
        List<InstanceRow> rows = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT ct.capture_instance, ct.object_id, s.name, t.name, "
                + "ct.start_lsn, ct.create_date, ct.role_name, ct.source_object_id FROM " + SqlServerSql.quote(cdcSchema)
                + ".change_tables ct JOIN sys.tables t ON t.object_id = ct.source_object_id JOIN sys.schemas s ON s.schema_id = "
                + "t.schema_id WHERE ct.start_lsn IS NOT NULL ORDER BY s.name, t.name, ct.start_lsn")) {
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    TableId table = TableId.of(database, rs.getString(3), rs.getString(4));
                    Timestamp created = rs.getTimestamp(6);
                    rows.add(new InstanceRow(CaptureInstance.of(rs.getString(1), rs.getInt(2), table,
                            Lsn.of(rs.getBytes(5))).ofSourceObject(rs.getInt(8)), created.toInstant(), rs.getString(7)));
                }
            }
        }
        Map<TableId, InstanceRow> newest = new HashMap<>();
        List<InstanceRow> result = new ArrayList<>();
        for (int i = rows.size() - 1; i >= 0; i--) { // per table, from the newest floor down
            InstanceRow row = rows.get(i);
            InstanceRow newer = newest.put(row.instance.table(), row);
            result.add(0, newer == null ? row
                    : new InstanceRow(row.instance.supersededAt(newer.instance.floor()), row.created, row.role));
        }
        return result;
    }

    /**
     * The source table's {@code column_id} of each column an instance captures ({@code
     * cdc.captured_columns} of its change table), by column name: a column keeps its id when renamed, and
     * a column dropped and added again under its name has a new one.
     */
    static Map<String, Integer> capturedColumnIds(Connection c, String cdcSchema, CaptureInstance instance)
            throws SQLException {
        Map<String, Integer> ids = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT column_name, column_id FROM "
                + SqlServerSql.quote(cdcSchema) + ".captured_columns WHERE object_id = ?")) {
            s.setInt(1, instance.changeTable());
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    ids.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        return ids;
    }

    static String name(TableId table) {
        return table.schema() + "." + table.table();
    }
}
