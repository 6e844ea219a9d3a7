package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import javax.annotation.Nullable;

/**
 * Places chunk keys among chunk bounds by the server's own comparison of the key columns, in one query:
 * what the handoff and a chunk's binlog backfill need for text of a collation {@link MySqlKeyOrder} does not
 * reproduce ({@link MySqlKeyOrder#placedByServer}). Keys and bounds go as one derived table of {@code
 * UNION ALL} rows, each text value {@code CONVERT(? USING charset) COLLATE} the column's collation (so
 * PAD SPACE, NO PAD, case and accents are the column's), each temporal value as its fixed-width text in byte
 * order, numbers and bytes as they bind; both sorted together ({@link #sql}), a key's rank is the count of bounds before it.
 * Text is compared in the collation the caller's description names, which the chunks were planned in, where it is not
 * the column's now (changed since: the stream may still hand off from chunks read before), so that a key is placed in
 * the chunk that holds it in their order.
 * One per session: the handoff's and every chunk backfill's placements read a table key's catalogue once. Not thread-safe.
 */
final class MySqlKeyPlacement {
    /** A character set's or collation's name, as it may stand in a statement. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]+");
    /** Per table, key and the key's collations as the caller described them: each column's value expression. */
    private final Map<String, String[]> columns = new HashMap<>();

    /**
     * Each key's rank among the bounds, by a query on {@code connection}. {@code collations} are the key columns' as
     * the caller's description of the table names them ({@link MySqlKeyOrder#collationName}), which text is compared
     * in where the column's collation is another now; a table described with others has its catalogue read again;
     * null where the caller has no description (the columns' collations now).
     */
    int[] place(Connection connection, TableId table, List<String> keyColumns, List<ValueType> keyTypes,
            @Nullable List<String> collations, List<Object[]> bounds, List<Object[]> keys) throws SQLException {
        int[] ranks = new int[keys.size()];
        if (keys.isEmpty()) {
            return ranks;
        }
        if (bounds.isEmpty()) {
            return ranks; // no bound precedes any key
        }
        String[] expressions = describe(connection, table, keyColumns, keyTypes, collations);
        try (PreparedStatement s = connection.prepareStatement(sql(expressions, keys.size(), bounds.size()))) {
            int next = 1;
            for (Object[] key : keys) {
                next = MySqlSql.bind(s, next, values(table, key));
            }
            for (Object[] bound : bounds) {
                next = MySqlSql.bind(s, next, values(table, bound));
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    ranks[rs.getInt(1)] = rs.getInt(2);
                }
            }
        }
        return ranks;
    }

    /**
     * Keys (kind 0) and bounds (kind 1) sorted together by the key columns, a bound after the keys it equals;
     * each key's running sum of kinds is the count of bounds before it: O((keys + bounds) log) comparisons.
     */
    static String sql(String[] expressions, int keys, int bounds) {
        StringBuilder names = new StringBuilder();
        StringBuilder order = new StringBuilder();
        for (int i = 0; i < expressions.length; i++) {
            names.append(", ").append(expressions[i]).append(" AS c").append(i);
            order.append("x.c").append(i).append(", ");
        }
        StringBuilder sql = new StringBuilder("SELECT y.i, y.r FROM (SELECT x.kind, x.i, SUM(x.kind) OVER (ORDER BY ")
                .append(order).append("x.kind ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS r FROM (");
        rows(sql, names.toString(), 0, keys);
        sql.append(" UNION ALL ");
        rows(sql, names.toString(), 1, bounds);
        return sql.append(") x) y WHERE y.kind = 0").toString();
    }

    private static void rows(StringBuilder sql, String names, int kind, int count) {
        for (int r = 0; r < count; r++) {
            sql.append(r == 0 ? "" : " UNION ALL ").append("SELECT ").append(kind).append(" AS kind, ").append(r)
                    .append(" AS i").append(names);
        }
    }

    private static Object[] values(TableId table, Object[] key) {
        for (Object v : key) {
            if (v == null) {
                throw new IllegalArgumentException("A chunk key of " + table + " to place holds a null");
            }
        }
        return key;
    }

    private String[] describe(Connection connection, TableId table, List<String> keyColumns, List<ValueType> keyTypes,
            @Nullable List<String> collations) throws SQLException {
        String cacheKey = table + " " + keyColumns + " " + keyTypes + " " + collations;
        String[] d = columns.get(cacheKey);
        if (d != null) {
            return d;
        }
        d = new String[keyColumns.size()];
        try (PreparedStatement s = connection.prepareStatement("SELECT DATA_TYPE, CHARACTER_SET_NAME, COLLATION_NAME "
                + "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?")) {
            for (int i = 0; i < d.length; i++) {
                s.setString(1, table.database());
                s.setString(2, table.table());
                s.setString(3, keyColumns.get(i));
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        throw new CdcException(CdcException.Kind.STATE, "Table " + table.qualifiedName() + " or its "
                                + "chunk key column " + keyColumns.get(i) + " is gone from the server, whose collation "
                                + "placed the table's changed keys among its snapshot chunks. Start the source without "
                                + "state to snapshot the table again, or leave the table out.");
                    }
                    String[] collated = planned(connection, table, keyColumns.get(i), rs.getString(1), rs.getString(2),
                            rs.getString(3), collations == null ? null : collations.get(i));
                    d[i] = expression(table, keyColumns.get(i), keyTypes.get(i), rs.getString(1), collated[0], collated[1]);
                }
            }
        }
        columns.put(cacheKey, d);
        return d;
    }

    /**
     * The character set and collation to compare a text column's values in: the column's, unless {@code planned} (as
     * {@link MySqlKeyOrder#collationName} names the collation the chunks were planned in; null: not known) orders
     * otherwise, which is then taken with its own character set.
     *
     * @throws CdcException (state) when the planned collation is one the server does not know
     */
    private static String[] planned(Connection connection, TableId table, String column, String dataType,
            @Nullable String charset, @Nullable String collation, @Nullable String planned) throws SQLException {
        String name = collation == null ? null
                : MySqlKeyOrder.collationName(dataType.toLowerCase(Locale.ROOT), collation);
        ValueType text = ValueType.of(ValueKind.TEXT);
        if (planned == null || name == null || MySqlKeyOrder.INSTANCE.sameOrder(text, planned, text, name)) {
            return new String[] {charset, collation};
        }
        String plannedCollation = MySqlKeyOrder.collationOf(planned);
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT CHARACTER_SET_NAME FROM information_schema.COLLATIONS WHERE COLLATION_NAME = ?")) {
            s.setString(1, plannedCollation);
            try (ResultSet rs = s.executeQuery()) {
                if (rs.next() && rs.getString(1) != null) {
                    return new String[] {rs.getString(1), plannedCollation};
                }
            }
        }
        // MariaDB lists its UCA 14 collations without a character set (uca1400_ai_ci), which a column's full name
        // (utf8mb4_uca1400_ai_ci) begins with, as every collation's name does; no character set's name holds a '_'
        int end = plannedCollation.indexOf('_');
        if (end > 0 && collates(connection, plannedCollation.substring(0, end), plannedCollation)) {
            return new String[] {plannedCollation.substring(0, end), plannedCollation};
        }
        throw new CdcException(CdcException.Kind.STATE, "The chunk key column " + column + " of table "
                + table.qualifiedName() + " changed its collation from " + plannedCollation + ", in which the table's "
                + "snapshot chunks were planned, to " + collation + " while they were read or handed off, and the server "
                + "does not know " + plannedCollation + " to place changed keys among them in it. Start the job without "
                + "its state so that the table is snapshotted again in the new order.");
    }

    /** Whether the server compares text of character set {@code charset} in {@code collation}. */
    private static boolean collates(Connection connection, String charset, String collation) throws SQLException {
        if (!NAME.matcher(charset).matches() || !NAME.matcher(collation).matches()) {
            return false;
        }
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT CONVERT('' USING " + charset + ") COLLATE " + collation);
                ResultSet rs = s.executeQuery()) {
            return rs.next();
        } catch (SQLException e) {
            if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
                throw e; // the connection's failure, not the name's
            }
            return false; // an unknown character set or collation, or one not of that character set
        }
    }

    /** A parameter as a value of the column: its collation for text, its type for temporal ones. */
    private static String expression(TableId table, String column, ValueType type, String dataType, String charset,
            String collation) {
        switch (type.kind()) {
            case TEXT:
                if ("uuid".equalsIgnoreCase(dataType)) {
                    return "CAST(? AS UUID)"; // MariaDB's, ordered as the server stores it
                }
                if (charset == null || collation == null) {
                    break;
                }
                return "CONVERT(? USING " + charset + ") COLLATE " + collation;
            case INTEGER:
            case BIGINT:
            case UNSIGNED_BIGINT:
            case DECIMAL:
            case BYTES:
                return "?";
            case DATE:
            case TIMESTAMP:
            case TIMESTAMP_TZ:
                // their fixed-width text (MySqlSql.bind) in byte order: the column's order, zero dates included
                // ('0000-00-00' first, '2024-00-00' before '2024-01-01'), which a CAST could turn into NULL
                return "CONVERT(? USING ascii) COLLATE ascii_bin";
            default:
                break;
        }
        throw new CdcException(CdcException.Kind.CONFIGURATION, "The server cannot place keys of " + table.qualifiedName()
                + " among its chunks: its chunk key column " + column + " (" + dataType + ") is not one the source "
                + "places with a text key of a linguistic collation. Name other key columns with "
                + "'scan.incremental.snapshot.chunk.key-column'.");
    }
}
