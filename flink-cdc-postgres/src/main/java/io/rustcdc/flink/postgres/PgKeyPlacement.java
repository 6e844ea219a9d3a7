package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueType;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Places chunk keys among chunk bounds by PostgreSQL's own comparison of the key columns, in one query:
 * what the handoff needs for text of a collation the key order does not reproduce ({@link
 * PostgresKeyOrder#placedByServer}). The bounds and the keys go as text arrays, are cast to each column's
 * declared type and sorted together in the column's collation (bounds after keys they equal); each key's
 * rank is the count of bounds before it. A key column whose collation is not the one the chunks were planned in
 * (changed since, while the stream may still hand off from chunks read before) fails the source ({@code STATE}): the
 * collation planned is known by its description only, not by a name SQL could compare in. Not thread-safe.
 */
final class PgKeyPlacement {
    private final Connection connection;
    private final PgCatalog catalog;
    /** Per table and key: each column's declared type and quoted collation (null for none), from the catalogue. */
    private final Map<String, String[][]> columns = new HashMap<>();

    PgKeyPlacement(Connection connection, PgCatalog catalog) {
        this.connection = connection;
        this.catalog = catalog;
    }

    /** @param keyCollations the key columns' collations the chunks were planned in, as descriptions name them */
    int[] place(TableId table, List<String> keyColumns, List<ValueType> keyTypes, List<String> keyCollations,
            List<Object[]> bounds, List<Object[]> keys) throws SQLException {
        String[][] described = describe(table, keyColumns, keyCollations);
        int n = keyColumns.size();
        try (PreparedStatement s = connection.prepareStatement(sql(described))) {
            for (int i = 0; i < n; i++) {
                s.setArray(1 + i, array(keys, keyTypes, i));
                s.setArray(1 + n + i, array(bounds, keyTypes, i));
            }
            int[] ranks = new int[keys.size()];
            java.util.Arrays.fill(ranks, -1);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    ranks[rs.getInt(1) - 1] = rs.getInt(2);
                }
            }
            for (int r : ranks) {
                if (r < 0) {
                    throw new IllegalStateException("PostgreSQL placed " + keys.size() + " keys of " + table
                            + " but not all of them");
                }
            }
            return ranks;
        }
    }

    /** Both sets sorted together; a key's running count of bounds is how many precede it. */
    static String sql(String[][] described) {
        int n = described.length;
        StringBuilder cast = new StringBuilder();
        StringBuilder params = new StringBuilder();
        StringBuilder names = new StringBuilder();
        StringBuilder order = new StringBuilder();
        for (int i = 0; i < n; i++) {
            String sep = i == 0 ? "" : ", ";
            cast.append(", CAST(u.v").append(i).append(" AS ").append(described[i][0]).append(") AS c").append(i);
            params.append(sep).append("?::text[]");
            names.append(sep).append('v').append(i);
            order.append("x.c").append(i).append(described[i][1] == null ? "" : " COLLATE " + described[i][1]).append(", ");
        }
        String side = cast + " FROM unnest(" + params + ") WITH ORDINALITY AS u(" + names + ", i)";
        return "SELECT y.i, y.r FROM (SELECT x.kind, x.i, sum(x.kind) OVER (ORDER BY " + order + "x.kind ROWS BETWEEN "
                + "UNBOUNDED PRECEDING AND CURRENT ROW) AS r FROM (SELECT 0 AS kind, u.i" + side
                + " UNION ALL SELECT 1 AS kind, u.i" + side + ") x) y WHERE y.kind = 0";
    }

    private Array array(List<Object[]> rows, List<ValueType> types, int column) throws SQLException {
        String[] texts = new String[rows.size()];
        for (int r = 0; r < texts.length; r++) {
            Object v = rows.get(r)[column];
            if (v == null) {
                throw new IllegalArgumentException("A chunk key to place holds a null");
            }
            texts[r] = PgLiterals.text(types.get(column), v);
        }
        return connection.createArrayOf("text", texts);
    }

    private String[][] describe(TableId table, List<String> keyColumns, List<String> keyCollations) throws SQLException {
        String cacheKey = table + " " + keyColumns + " " + keyCollations;
        String[][] d = columns.get(cacheKey);
        if (d != null) {
            return d;
        }
        d = new String[keyColumns.size()][];
        try (PreparedStatement s = connection.prepareStatement("SELECT pg_catalog.format_type(a.atttypid, a.atttypmod), "
                + "CASE WHEN a.attcollation = 0 THEN NULL ELSE pg_catalog.quote_ident(n.nspname) || '.' || "
                + "pg_catalog.quote_ident(c.collname) END FROM pg_catalog.pg_attribute a "
                + "LEFT JOIN pg_catalog.pg_collation c ON c.oid = a.attcollation "
                + "LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.collnamespace "
                + "WHERE a.attrelid = pg_catalog.to_regclass(?) AND a.attname = ? AND a.attnum > 0 AND NOT a.attisdropped")) {
            for (int i = 0; i < keyColumns.size(); i++) {
                s.setString(1, PgPrerequisites.qualified(table));
                s.setString(2, keyColumns.get(i));
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        throw new CdcException(CdcException.Kind.STATE, "Table " + table + " or its chunk key column "
                                + keyColumns.get(i) + " is gone from the database, whose collation placed the table's "
                                + "changed keys among its snapshot chunks. Start the source without state to snapshot the "
                                + "table again, or leave the table out.");
                    }
                    d[i] = new String[] {rs.getString(1), rs.getString(2)};
                }
            }
        }
        // after the names compared in are read: a change in between fails here rather than being compared in
        requirePlannedCollations(table, keyColumns, keyCollations);
        columns.put(cacheKey, d);
        return d;
    }

    /** Fails when a key column's collation now is not the one the chunks were planned in. */
    private void requirePlannedCollations(TableId table, List<String> keyColumns, List<String> keyCollations)
            throws SQLException {
        Map<String, PgChunkKey.Column> now = catalog.keyColumns(table, keyColumns);
        List<String> changes = new ArrayList<>();
        for (int i = 0; i < keyColumns.size(); i++) {
            String planned = keyCollations.get(i);
            PgChunkKey.Column column = now.get(keyColumns.get(i));
            if (planned != null && column != null && !PgChunkKey.collatedIn(column.ordering(), planned)) {
                changes.add(keyColumns.get(i) + " from collation " + planned + " to " + column.ordering());
            }
        }
        if (!changes.isEmpty()) {
            throw new CdcException(CdcException.Kind.STATE, "The chunk key of table " + table.qualifiedName() + " changed "
                    + "its collation while its snapshot chunks were read or handed off (" + String.join(", ", changes)
                    + "): PostgreSQL would place changed keys among the chunks in the new collation, not the one they "
                    + "were planned in, so the handoff could drop a change or emit it twice. Start the job without its "
                    + "state so that the table is snapshotted again in the new order.");
        }
    }
}
