package io.rustcdc.flink.postgres;

import io.rustcdc.flink.postgres.types.PgType;
import io.rustcdc.flink.postgres.types.PgTypeResolver;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.TableDescription;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import javax.annotation.Nullable;

/**
 * Reads tables from PostgreSQL's catalogue: which tables a publication carries, and each table's
 * columns (declared type from {@code format_type()}, nullability and primary key), limited to the
 * columns pgoutput sends: not generated columns, and only a publication's column list where it has
 * one (PostgreSQL 15+). Not thread-safe.
 */
final class PgCatalog {
    private final Connection connection;
    private final String database;
    private final PgTypeResolver types;
    private final int serverVersion;
    private final PgCollations collations;

    PgCatalog(Connection connection, String database) throws SQLException {
        this.connection = connection;
        this.database = database;
        this.types = new PgTypeResolver(connection);
        this.serverVersion = connection.getMetaData().getDatabaseMajorVersion();
        this.collations = new PgCollations(connection, serverVersion);
    }

    PgTypeResolver types() {
        return types;
    }

    int serverVersion() {
        return serverVersion;
    }

    /**
     * The tables publication {@code t.pubname = ?} carries, each as its partition root {@code r} (a partition
     * listed when {@code publish_via_partition_root} is off is its root's) in schema {@code rn}.
     */
    static final String PUBLISHED_ROOTS = "FROM pg_catalog.pg_publication_tables t "
            + "JOIN pg_catalog.pg_namespace n ON n.nspname = t.schemaname "
            + "JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = t.tablename "
            + "JOIN pg_catalog.pg_class r ON r.oid = COALESCE(pg_catalog.pg_partition_root(c.oid), c.oid) "
            + "JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace WHERE t.pubname = ?";

    /**
     * The tables {@code filter} selects among those the publication carries, or among all
     * ordinary and partitioned tables outside the system schemas when {@code publication} is null.
     * A partitioned table counts as one table under its root's name, also where the publication
     * lists its partitions (without {@code publish_via_partition_root}, which the stream's
     * prerequisites then require); a partition never counts by itself, and selecting one without
     * its root fails ({@link PgPartitions#requireRootsSelected}).
     */
    List<TableId> discover(@Nullable String publication, TableFilter filter) throws SQLException {
        PgPartitions.requireRootsSelected(connection, database, filter);
        String sql = publication == null
                ? "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c "
                        + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                        + "WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition "
                        + "AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' "
                        + "AND n.nspname NOT LIKE 'pg\\_temp%' ORDER BY 1, 2"
                : "SELECT DISTINCT rn.nspname, r.relname " + PUBLISHED_ROOTS + " ORDER BY 1, 2";
        List<TableId> tables = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            if (publication != null) {
                s.setString(1, publication);
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    TableId id = TableId.of(database, rs.getString(1), rs.getString(2));
                    if (filter.matches(id)) {
                        tables.add(id);
                    }
                }
            }
        }
        return tables;
    }

    /** The table as pgoutput will send it, per the publication's column list when it has one. */
    PgTable describe(TableId table, @Nullable String publication) throws SQLException {
        long[] relation = relation(table);
        long relid = relation[0];
        Set<String> published = publishedColumns(table, publication);
        List<RowShape.Column> columns = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<ValueType> valueTypes = new ArrayList<>();
        List<PgType> pgTypes = new ArrayList<>();
        List<String> collationNames = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT a.attname, a.atttypid, a.atttypmod, NOT a.attnotnull, a.attcollation FROM pg_catalog.pg_attribute a "
                        + "WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' "
                        + "ORDER BY a.attnum")) {
            s.setLong(1, relid);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(1);
                    if (published != null && !published.contains(name)) {
                        continue;
                    }
                    PgType type = types.resolve((int) rs.getLong(2), rs.getInt(3));
                    columns.add(RowShape.Column.of(name, type.declared(), rs.getBoolean(4)));
                    names.add(name);
                    valueTypes.add(type.valueType());
                    pgTypes.add(type);
                    collationNames.add(collations.name(rs.getLong(2), rs.getLong(5), type.declared()));
                }
            }
        }
        List<String> key = primaryKey(relid);
        if (!names.containsAll(key)) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "The publication '" + publication + "' leaves primary "
                    + "key columns of " + table.qualifiedName() + " out of its column list; include them: ALTER PUBLICATION "
                    + publication + " SET TABLE " + table.qualifiedName() + " (...)");
        }
        RowShape shape = RowShape.of(table.schema(), table.table(), columns, key);
        return new PgTable(TableDescription.of(table, shape, RowType.of(names, valueTypes), collationNames), relid,
                pgTypes, relation[1] != 0);
    }

    /** The primary key columns of relation {@code relid}, in key order; empty when it has none. */
    List<String> primaryKey(long relid) throws SQLException {
        List<String> key = new ArrayList<>();
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT a.attname FROM pg_catalog.pg_index i "
                        + "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) "
                        + "JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum "
                        // the key's own columns, not those it INCLUDEs (no part of the key, nor of old rows' keys)
                        + "WHERE i.indrelid = ? AND i.indisprimary AND k.ord <= i.indnkeyatts ORDER BY k.ord")) {
            s.setLong(1, relid);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    key.add(rs.getString(1));
                }
            }
        }
        return key;
    }

    /**
     * The live columns of relation {@code relid} now, by name: attribute number, type OID, type
     * modifier and NOT NULL; empty when the relation is gone.
     */
    java.util.Map<String, PgOutputDecoder.Attribute> attributes(long relid) throws SQLException {
        java.util.Map<String, PgOutputDecoder.Attribute> attributes = new java.util.HashMap<>();
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT attname, attnum, atttypid, atttypmod, attnotnull, atthasmissing OR attidentity <> '' "
                        + "OR attgenerated <> '', atthasdef FROM pg_catalog.pg_attribute WHERE attrelid = ? AND attnum > 0 "
                        + "AND NOT attisdropped")) {
            s.setLong(1, relid);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    attributes.put(rs.getString(1),
                            new PgOutputDecoder.Attribute(rs.getInt(2), (int) rs.getLong(3), rs.getInt(4), rs.getBoolean(5),
                                    rs.getBoolean(6), rs.getBoolean(7)));
                }
            }
        }
        return attributes;
    }

    /**
     * Waits until the committed transaction {@code xid} (the low 32 bits pgoutput sends) is visible to
     * this connection's next statement: in a snapshot taken now, it is below the snapshot's end and not
     * running. Its epoch is the snapshot end's, or the one before where the low bits are above the end's
     * (a transaction decoded as committed was given its id before the end). Fails with {@code CONNECTION}
     * after {@code timeout}.
     */
    void awaitVisible(long xid, Duration timeout) throws SQLException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (PreparedStatement s = connection.prepareStatement("SELECT pg_visible_in_snapshot((((x >> 32) - "
                + "CASE WHEN ? >= (x & 4294967295) THEN 1 ELSE 0 END) << 32 | ?)::text::xid8, q.s) "
                + "FROM (SELECT s, pg_snapshot_xmax(s)::text::bigint AS x FROM pg_current_snapshot() s) q")) {
            s.setLong(1, xid);
            s.setLong(2, xid);
            while (true) {
                try (ResultSet rs = s.executeQuery()) {
                    if (rs.next() && rs.getBoolean(1)) {
                        return;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new CdcException(CdcException.Kind.CONNECTION, "Transaction " + xid + ", which the slot sent "
                            + "as committed, was still not visible to other sessions of database " + database + " after "
                            + timeout.toSeconds() + " s; the stream reads the catalogue only once it is.");
                }
                LockSupport.parkNanos(1_000_000L);
                if (Thread.currentThread().isInterrupted()) {
                    throw new SQLException("Interrupted while waiting for transaction " + xid + " to become visible");
                }
            }
        }
    }

    /** The table's relation OID, and 1 when it is partitioned (relkind {@code p}), else 0 (relkind {@code r}). */
    private long[] relation(TableId table) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT c.oid, (c.relkind = 'p')::int FROM pg_catalog.pg_class c "
                        + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                        + "WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p')")) {
            s.setString(1, table.schema());
            s.setString(2, table.table());
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new CdcException(CdcException.Kind.PREREQUISITE, "Table " + table.qualifiedName()
                            + " does not exist in database " + database + " (or is not a table)");
                }
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    /**
     * Each of {@code columns} of {@code table} now, by name, in one query: its declared type and collation as {@link
     * PgChunkKey} compares them, and its collation as SQL names it; a column gone is missing, and so is every column
     * of a table gone.
     */
    Map<String, PgChunkKey.Column> keyColumns(TableId table, List<String> columns) throws SQLException {
        Map<String, PgChunkKey.Column> found = new HashMap<>();
        try (PreparedStatement s = connection.prepareStatement("SELECT a.attname, a.atttypid, a.atttypmod, a.attcollation, "
                + "pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.collname) "
                + "FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_collation c ON c.oid = a.attcollation "
                + "LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.collnamespace "
                + "WHERE a.attrelid = pg_catalog.to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped "
                + "AND a.attname = ANY (?)")) {
            s.setString(1, PgPrerequisites.qualified(table));
            s.setArray(2, connection.createArrayOf("text", columns.toArray()));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    PgType type = types.resolve((int) rs.getLong(2), rs.getInt(3));
                    String ordering = PgChunkKey.ordering(type.declared(),
                            collations.name(rs.getLong(2), rs.getLong(4), type.declared()));
                    found.put(rs.getString(1), new PgChunkKey.Column(ordering, rs.getString(5)));
                }
            }
        }
        return found;
    }

    /** The {@code relfilenode} of relation {@code relid} now; 0 for one without storage or gone. */
    long fileNode(long relid) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement("SELECT relfilenode FROM pg_catalog.pg_class WHERE oid = ?")) {
            s.setLong(1, relid);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    /**
     * Whether the table is partitioned (relkind {@code p}); false for a plain table, and for one that is gone
     * (whose snapshot query then fails as the table's).
     */
    boolean partitioned(TableId table) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT relkind = 'p' FROM pg_catalog.pg_class WHERE oid = pg_catalog.to_regclass(?)")) {
            s.setString(1, PgPrerequisites.qualified(table));
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    @Nullable
    private Set<String> publishedColumns(TableId table, @Nullable String publication) throws SQLException {
        if (publication == null || serverVersion < 15) {
            return null;
        }
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT attnames FROM pg_catalog.pg_publication_tables WHERE pubname = ? AND schemaname = ? AND tablename = ?")) {
            s.setString(1, publication);
            s.setString(2, table.schema());
            s.setString(3, table.table());
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                Array names = rs.getArray(1);
                return names == null ? null : new HashSet<>(List.of((String[]) names.getArray()));
            }
        }
    }
}
