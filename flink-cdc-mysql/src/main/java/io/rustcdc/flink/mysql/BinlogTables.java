package io.rustcdc.flink.mysql;

import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventMetadata;
import io.rustcdc.flink.mysql.types.BinlogValues;
import io.rustcdc.flink.mysql.types.MySqlCharsets;
import io.rustcdc.flink.mysql.types.MySqlColumn;
import io.rustcdc.flink.mysql.types.TableMapTypes;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import java.io.Serializable;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import javax.annotation.Nullable;

/**
 * Decoders of row events, one per table map seen (a table map is repeated in every transaction;
 * its decoder is reused while it says the same). A row carries the catalogue's shape only while
 * the catalogue agrees with the table map: same column names in order, same value types, same
 * nullability and the same primary key. Otherwise the row has no shape until a re-read agrees.
 */
final class BinlogTables {
    private final Connection connection;
    private final Map<Integer, String> charsets;
    /** The server's flavor: its table maps list the character sets of other columns than the other's. */
    private final ServerFlavor flavor;
    private final Map<Long, Decoder> decoders = new HashMap<>();
    /** The shape each table's rows carried since its last DDL statement (see {@link #rowsShape}). */
    private final Map<TableId, RowShape> rowsShapes = new HashMap<>();

    BinlogTables(Connection connection, Map<Integer, String> charsets) {
        this.connection = connection;
        this.charsets = charsets;
        try {
            this.flavor = MySqlShapes.flavor(connection);
        } catch (SQLException e) {
            throw new CdcException(CdcException.Kind.CONNECTION, "Could not read the server's version: "
                    + e.getMessage(), e);
        }
    }

    /** Java charset names by collation id, from the server's catalogue of collations. */
    static Map<Integer, String> charsets(Connection c) throws SQLException {
        Map<Integer, String> byId = new HashMap<>();
        readCharsets(c, "SELECT ID, CHARACTER_SET_NAME FROM information_schema.COLLATIONS", byId);
        // MariaDB 10.10+: collations of several character sets (utf8mb4_uca1400_ai_ci) listed there only; other
        // servers have no ID there (asked first, not tried: a refused query is a WARN of the driver's in the log)
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT 1 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = "
                        + "'information_schema' AND TABLE_NAME = 'COLLATION_CHARACTER_SET_APPLICABILITY' "
                        + "AND COLUMN_NAME = 'ID'")) {
            if (!rs.next()) {
                return byId;
            }
        }
        readCharsets(c, "SELECT ID, CHARACTER_SET_NAME FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY "
                + "WHERE ID IS NOT NULL", byId);
        return byId;
    }

    private static void readCharsets(Connection c, String sql, Map<Integer, String> byId) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                String java = rs.getString(2) == null ? null : MySqlCharsets.javaName(rs.getString(2));
                if (java != null) {
                    byId.put(rs.getInt(1), java);
                }
            }
        }
    }

    Decoder decoder(TableId table, TableMapEventData map) {
        Decoder known = decoders.get(map.getTableId());
        if (known != null && (known.map == map || known.sameAs(map))) {
            known.map = map;
            return known;
        }
        String type;
        try {
            type = MySqlShapes.tableType(connection, table.database(), table.table());
        } catch (SQLException e) {
            throw new CdcException(CdcException.Kind.CONNECTION, "Could not read the catalogue entry of " + table
                    + ": " + e.getMessage(), e);
        }
        // the catalogue read below gives up quietly; this refusal must not
        MySqlShapes.requireUnversioned(type, table.database(), table.table());
        boolean sequence = "SEQUENCE".equalsIgnoreCase(type);
        MySqlTable now = sequence ? null : catalogue(table, type);
        Decoder decoder = new Decoder(table, map, withCatalogueTypes(TableMapTypes.columns(map, charsets, flavor), now));
        decoder.sequence = sequence;
        decoder.shape = agreeingShape(decoder, now);
        decoders.put(map.getTableId(), decoder);
        if (decoder.shape != null) {
            rowsShapes.put(table, decoder.shape);
        } else {
            rowsShapes.remove(table);
        }
        return decoder;
    }

    /**
     * The shape the table's rows carried since its last DDL statement (the catalogue's when it agreed
     * with their table map); null when they carried none or none was read.
     */
    @Nullable
    RowShape rowsShape(TableId table) {
        return rowsShapes.get(table);
    }

    /** A DDL statement named the table: the shape its rows carried is from before it. */
    void forgetRowsShape(TableId table) {
        rowsShapes.remove(table);
    }

    /** After DDL: shapes are read again before they are stamped on rows. */
    void forgetShapes() {
        decoders.clear();
    }

    /** The table's shape in the catalogue now; null when it does not exist or cannot be read. */
    @Nullable
    RowShape catalogueShape(TableId table) {
        MySqlTable now;
        try {
            now = catalogue(table, MySqlShapes.tableType(connection, table.database(), table.table()));
        } catch (SQLException e) {
            return null;
        }
        return now == null ? null : now.description.shape();
    }

    /** The table in the catalogue now; null when dropped or not readable now: no shape rather than a wrong one. */
    @Nullable
    private MySqlTable catalogue(TableId table, @Nullable String type) {
        try {
            return MySqlShapes.describe(connection, table.database(), table.table(), type);
        } catch (SQLException | CdcException e) {
            return null;
        }
    }

    /**
     * The table map's columns, except that a BINARY(16) or BINARY(4) the catalogue declares as
     * MariaDB's UUID, INET4 or INET6 at the same place decodes as that type: the table map writes them
     * as BINARY and cannot tell them apart.
     */
    private static List<MySqlColumn> withCatalogueTypes(List<MySqlColumn> fromMap, @Nullable MySqlTable now) {
        if (now == null) {
            return fromMap;
        }
        List<MySqlColumn> columns = new ArrayList<>(fromMap);
        for (int i = 0; i < Math.min(columns.size(), now.columns.size()); i++) {
            MySqlColumn declared = now.columns.get(i);
            MySqlColumn logged = columns.get(i);
            boolean address = declared.family() == MySqlColumn.Family.UUID || declared.family() == MySqlColumn.Family.INET4
                    || declared.family() == MySqlColumn.Family.INET6;
            if (address && logged.family() == MySqlColumn.Family.BINARY && logged.size() == declared.size()
                    && logged.name().equals(declared.name())) {
                columns.set(i, declared);
            }
        }
        return columns;
    }

    @Nullable
    private RowShape agreeingShape(Decoder decoder, @Nullable MySqlTable now) {
        if (now == null || !now.description.rowType().equals(decoder.rowType)) {
            return null;
        }
        RowShape shape = now.description.shape();
        for (int i = 0; i < shape.columns().size(); i++) {
            if (shape.columns().get(i).nullable() != decoder.map.getColumnNullability().get(i)) {
                return null;
            }
        }
        TableMapEventMetadata meta = decoder.map.getEventMetadata();
        List<Integer> keyIndexes = meta.getSimplePrimaryKeys() != null ? meta.getSimplePrimaryKeys()
                : meta.getPrimaryKeysWithPrefix() != null ? new ArrayList<>(meta.getPrimaryKeysWithPrefix().keySet())
                : List.of();
        List<String> key = keyIndexes.stream().map(i -> decoder.rowType.name(i)).collect(Collectors.toList());
        return key.equals(shape.primaryKey()) ? shape : null;
    }

    /** Decodes the rows of one table map. */
    static final class Decoder {
        final TableId table;
        TableMapEventData map;
        final List<MySqlColumn> columns;
        final RowType rowType;
        @Nullable RowShape shape;
        /** A MariaDB sequence, whose state the binlog logs as rows: not a table's change. */
        boolean sequence;

        Decoder(TableId table, TableMapEventData map, List<MySqlColumn> columns) {
            this.table = table;
            this.map = map;
            this.columns = columns;
            this.rowType = RowType.of(columns.stream().map(MySqlColumn::name).collect(Collectors.toList()),
                    columns.stream().map(MySqlColumn::valueType).collect(Collectors.toList()));
        }

        boolean sameAs(TableMapEventData other) {
            return map.getDatabase().equals(other.getDatabase()) && map.getTable().equals(other.getTable())
                    && Arrays.equals(map.getColumnTypes(), other.getColumnTypes())
                    && Arrays.equals(map.getColumnMetadata(), other.getColumnMetadata())
                    && Objects.equals(map.getColumnNullability(), other.getColumnNullability())
                    && Objects.equals(String.valueOf(map.getEventMetadata()), String.valueOf(other.getEventMetadata()));
        }

        @Nullable
        RowShape shape() {
            return shape;
        }

        /** Whether the rows are a MariaDB sequence's state (NEXTVAL), which are no table's changes. */
        boolean isSequence() {
            return sequence;
        }

        Row row(Serializable[] cells) {
            if (cells.length != columns.size()) {
                throw new CdcException(CdcException.Kind.PREREQUISITE, "A row of " + table + " has " + cells.length
                        + " of its " + columns.size() + " columns: the server logged it without binlog_row_image=FULL.");
            }
            Row.Builder row = Row.builder(rowType);
            for (int i = 0; i < cells.length; i++) {
                row.set(i, cells[i] == null ? null : BinlogValues.decode(columns.get(i), cells[i]));
            }
            return row.build();
        }
    }
}
