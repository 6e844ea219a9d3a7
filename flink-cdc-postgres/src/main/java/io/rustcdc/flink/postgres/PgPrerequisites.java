package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks what capture needs of the server, each failing with the setting, what was found and the
 * statement that fixes it: {@code wal_level}, the role's REPLICATION attribute, the publication
 * (present, publishing every operation, covering the captured tables with no row filter, and publishing the
 * partitions of a partitioned table under its root's name), REPLICA IDENTITY (of a partitioned table and each of its
 * partitions), and SELECT on each table for snapshots with no row-level security policy applying.
 * Creates the publication only when the configuration allows.
 */
final class PgPrerequisites {
    private static final Logger LOG = LoggerFactory.getLogger(PgPrerequisites.class);

    private PgPrerequisites() {}

    static void requireSelect(Connection c, List<TableId> tables) throws SQLException {
        requireSelect(c, tables, "the snapshot reads");
    }

    /** SELECT on every one of {@code tables}, which the failure says the source needs because {@code why}. */
    static void requireSelect(Connection c, List<TableId> tables, String why) throws SQLException {
        List<String> denied = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT has_table_privilege(?, 'SELECT')")) {
            for (TableId t : tables) {
                s.setString(1, qualified(t));
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (!rs.getBoolean(1)) {
                        denied.add(qualified(t));
                    }
                }
            }
        }
        if (!denied.isEmpty()) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "The role " + currentUser(c) + " may not read "
                    + String.join(", ", denied) + ", which " + why + ": GRANT SELECT ON "
                    + String.join(", ", denied) + " TO " + currentUser(c) + ";");
        }
        requireAllRows(c, tables, why);
    }

    /**
     * No row-level security policy applies to the role on {@code tables}: a policy would hide rows from
     * the reads, silently. The source's sessions read with {@code row_security = off}, under which such a
     * read fails instead; this check says so before the first read, with the remedy.
     */
    private static void requireAllRows(Connection c, List<TableId> tables, String why) throws SQLException {
        List<String> filtered = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT pg_catalog.row_security_active(?::regclass)")) {
            for (TableId t : tables) {
                s.setString(1, qualified(t));
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        filtered.add(qualified(t));
                    }
                }
            }
        }
        if (!filtered.isEmpty()) {
            String role = currentUser(c);
            throw new CdcException(CdcException.Kind.PREREQUISITE, "Row-level security applies to the role " + role
                    + " on " + String.join(", ", filtered) + ", which " + why + ": its policies would hide rows "
                    + "from the source, which reads every row or fails. Let the role bypass them (ALTER ROLE " + role
                    + " BYPASSRLS;), or read as the tables' owner where they do not FORCE ROW LEVEL SECURITY.");
        }
    }

    static void requireLogicalReplication(Connection c) throws SQLException {
        String walLevel = single(c, "SHOW wal_level");
        if (!"logical".equals(walLevel)) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "PostgreSQL's wal_level is '" + walLevel
                    + "'; logical replication needs 'logical': ALTER SYSTEM SET wal_level = logical; then restart the server.");
        }
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT rolreplication OR rolsuper, current_user FROM pg_catalog.pg_roles "
                        + "WHERE rolname = current_user")) {
            rs.next();
            if (!rs.getBoolean(1)) {
                throw new CdcException(CdcException.Kind.PREREQUISITE, "The role " + rs.getString(2) + " lacks the "
                        + "REPLICATION attribute that streaming needs: ALTER ROLE " + rs.getString(2) + " REPLICATION;");
            }
        }
    }

    /**
     * The publication exists (or is created, when allowed), publishes every operation, publishes
     * partitions through their root where {@code tables} has a partitioned table, and covers {@code tables}.
     */
    static void preparePublication(Connection c, PostgresSourceConfig config, List<TableId> tables) throws SQLException {
        String pub = config.publicationName();
        try (PreparedStatement s = c.prepareStatement("SELECT puballtables, pubinsert, pubupdate, pubdelete, pubtruncate, "
                + "pubviaroot FROM pg_catalog.pg_publication WHERE pubname = ?")) {
            s.setString(1, pub);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    createPublication(c, config, tables);
                    return;
                }
                if (!(rs.getBoolean(2) && rs.getBoolean(3) && rs.getBoolean(4) && rs.getBoolean(5))) {
                    throw new CdcException(CdcException.Kind.PREREQUISITE, "Publication '" + pub + "' does not publish "
                            + "every operation, so changes would be missed: ALTER PUBLICATION "
                            + PgLiterals.quoteIdentifier(pub) + " SET (publish = 'insert, update, delete, truncate');");
                }
                if (!rs.getBoolean(6)) {
                    requireNoPartitioned(c, pub, tables);
                }
            }
        }
        Set<String> covered = new TreeSet<>();
        Map<String, String> rowFilters = new TreeMap<>();
        // row filters came with PostgreSQL 15 (as did column lists, which PgCatalog honours: a projection, not a loss)
        boolean hasRowFilters = c.getMetaData().getDatabaseMajorVersion() >= 15;
        try (PreparedStatement s = c.prepareStatement("SELECT schemaname, tablename, "
                + (hasRowFilters ? "rowfilter" : "NULL") + " FROM pg_catalog.pg_publication_tables WHERE pubname = ?")) {
            s.setString(1, pub);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    String table = qualified(TableId.of(config.database(), rs.getString(1), rs.getString(2)));
                    covered.add(table);
                    if (rs.getString(3) != null) {
                        rowFilters.put(table, rs.getString(3));
                    }
                }
            }
        }
        List<String> missing = tables.stream().map(PgPrerequisites::qualified).filter(t -> !covered.contains(t))
                .collect(Collectors.toList());
        if (!missing.isEmpty()) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "Publication '" + pub + "' does not carry "
                    + String.join(", ", missing) + ", so their changes would never arrive: ALTER PUBLICATION "
                    + PgLiterals.quoteIdentifier(pub) + " ADD TABLE " + String.join(", ", missing) + ";");
        }
        requireNoRowFilter(pub, tables, rowFilters);
    }

    /**
     * No captured table is published under a row filter ({@code FOR TABLE t WHERE (...)}, PostgreSQL
     * 15+): pgoutput would send only the changes of rows inside it, an update of a row outside it not at
     * all, and an update moving a row out of it as a delete, so the changelog would lose changes of rows the
     * snapshot delivered without a word.
     */
    static void requireNoRowFilter(String pub, List<TableId> tables, Map<String, String> rowFilters) {
        List<String> filtered = tables.stream().map(PgPrerequisites::qualified).filter(rowFilters::containsKey)
                .collect(Collectors.toList());
        if (filtered.isEmpty()) {
            return;
        }
        String quoted = PgLiterals.quoteIdentifier(pub);
        throw new CdcException(CdcException.Kind.PREREQUISITE, "Publication '" + pub + "' publishes "
                + filtered.stream().map(t -> t + " only WHERE " + rowFilters.get(t)).collect(Collectors.joining(", "))
                + ": a row filter makes pgoutput leave out the changes of rows outside it (an update moving a row "
                + "out of it arrives as a delete, one moving a row in as an insert), while the snapshot reads every "
                + "row, so changes would be lost. Publish the table without the filter, in one transaction (adding "
                + "back its column list, if it has one): BEGIN; " + filtered.stream().map(t -> "ALTER PUBLICATION "
                + quoted + " DROP TABLE " + t + "; ALTER PUBLICATION " + quoted + " ADD TABLE " + t + ";")
                .collect(Collectors.joining(" ")) + " COMMIT;");
    }

    /** Without publish_via_partition_root, a partitioned table's changes would arrive under its partitions' names. */
    static void requireNoPartitioned(Connection c, String pub, List<TableId> tables) throws SQLException {
        List<String> partitioned = PgPartitions.partitioned(c, tables);
        if (!partitioned.isEmpty()) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "Publication '" + pub + "' sends the changes of "
                    + "the partitions of " + String.join(", ", partitioned) + " under each partition's own name "
                    + "(publish_via_partition_root is off), but a partitioned table is captured as one table under "
                    + "its root's name: ALTER PUBLICATION " + PgLiterals.quoteIdentifier(pub)
                    + " SET (publish_via_partition_root = true);");
        }
    }

    /**
     * Every table identifies its rows in deletes (REPLICA IDENTITY not NOTHING, and a key or an
     * index where DEFAULT); with {@code fullBeforeImages}, REPLICA IDENTITY FULL. The same holds for
     * each partition of a partitioned table, and FULL where the partitioned table has FULL: a
     * partition's WAL holds old rows by its own setting (ALTER TABLE on the partitioned table does
     * not change its partitions'), while pgoutput flags them by the partitioned table's.
     */
    static void requireReplicaIdentity(Connection c, List<TableId> tables, boolean fullBeforeImages) throws SQLException {
        List<String> wrong = new ArrayList<>();
        List<String> partitions = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT c.relreplident, EXISTS (SELECT 1 FROM pg_catalog.pg_index i "
                + "WHERE i.indrelid = c.oid AND i.indisprimary) FROM pg_catalog.pg_class c WHERE c.oid = ?::regclass")) {
            for (TableId t : tables) {
                s.setString(1, qualified(t));
                String identity;
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    identity = rs.getString(1);
                    if (!identifies(identity, rs.getBoolean(2), fullBeforeImages)) {
                        wrong.add(qualified(t));
                    }
                }
                boolean full = fullBeforeImages || "f".equals(identity);
                for (PgPartitions.Leaf leaf : PgPartitions.leaves(c, t)) {
                    if (!identifies(leaf.identity(), leaf.hasKey(), full)) {
                        wrong.add(qualified(leaf.table()));
                        partitions.add(qualified(leaf.table()) + " of " + qualified(t));
                    }
                }
            }
        }
        if (!wrong.isEmpty()) {
            String why = fullBeforeImages
                    ? "the changelog needs whole old rows of updates and deletes"
                    : "their deletes and key updates would not say which row changed";
            String partitionNote = partitions.isEmpty() ? "" : " A partition (" + String.join(", ", partitions)
                    + ") logs old rows by its own REPLICA IDENTITY, which ALTER TABLE on its partitioned table does "
                    + "not change, while pgoutput flags them by the partitioned table's: it needs what its partitioned "
                    + "table needs, and FULL where that has FULL (else its key-only old rows would pass for whole rows).";
            throw new CdcException(CdcException.Kind.PREREQUISITE, "REPLICA IDENTITY of " + String.join(", ", wrong)
                    + " does not fit: " + why + "." + partitionNote + " Run: " + wrong.stream()
                    .map(t -> "ALTER TABLE " + t + " REPLICA IDENTITY FULL;").collect(Collectors.joining(" ")));
        }
    }

    /**
     * No captured table, and no partition of a captured partitioned table, is UNLOGGED: its changes are not
     * written to the WAL, so no slot ever sees them, while a snapshot reads its rows. PostgreSQL refuses an
     * unlogged table in a publication, but not a partition under a published root, nor one under a publication
     * {@code FOR ALL TABLES}.
     */
    static void requireLogged(Connection c, List<TableId> tables) throws SQLException {
        List<String> unlogged = new ArrayList<>();
        List<String> described = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT n.nspname, p.relname FROM pg_catalog.pg_class r "
                + "JOIN pg_catalog.pg_class p ON p.oid = r.oid OR (r.relkind = 'p' AND p.oid IN "
                + "(SELECT relid FROM pg_catalog.pg_partition_tree(r.oid))) "
                + "JOIN pg_catalog.pg_namespace n ON n.oid = p.relnamespace "
                + "WHERE r.oid = ?::regclass AND p.relpersistence <> 'p' ORDER BY 1, 2")) {
            for (TableId t : tables) {
                s.setString(1, qualified(t));
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        TableId table = TableId.of(t.database(), rs.getString(1), rs.getString(2));
                        unlogged.add(qualified(table));
                        described.add(table.equals(t) ? qualified(t) : qualified(table) + " (a partition of "
                                + qualified(t) + ")");
                    }
                }
            }
        }
        if (!unlogged.isEmpty()) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, String.join(", ", described) + (described.size() == 1
                    ? " is" : " are") + " UNLOGGED: the changes of an unlogged table are not written to the WAL, so "
                    + "the stream never sees them. Run: " + unlogged.stream().map(t -> "ALTER TABLE " + t + " SET LOGGED;")
                    .collect(Collectors.joining(" ")));
        }
    }

    private static boolean identifies(String identity, boolean hasKey, boolean full) {
        return full ? "f".equals(identity) : "f".equals(identity) || "i".equals(identity) || ("d".equals(identity) && hasKey);
    }

    private static void createPublication(Connection c, PostgresSourceConfig config, List<TableId> tables) throws SQLException {
        String pub = PgLiterals.quoteIdentifier(config.publicationName());
        String list = tables.stream().map(PgPrerequisites::qualified).collect(Collectors.joining(", "));
        if (!config.createPublicationIfMissing()) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "Publication '" + config.publicationName()
                    + "' does not exist in database " + config.database() + ". Create it: CREATE PUBLICATION " + pub
                    + " FOR TABLE " + (list.isEmpty() ? "<tables>" : list)
                    + (PgPartitions.partitioned(c, tables).isEmpty() ? "" : " WITH (publish_via_partition_root = true)")
                    + ";  or set '"
                    + PostgresOptions.PUBLICATION_CREATE_IF_MISSING.key() + "' = true.");
        }
        if (tables.isEmpty()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "No table matches the include and exclude lists in "
                    + "database " + config.database() + ", so there is nothing to create publication '"
                    + config.publicationName() + "' for");
        }
        try (Statement s = c.createStatement()) {
            s.execute("CREATE PUBLICATION " + pub + " FOR TABLE " + list + " WITH (publish_via_partition_root = true)");
        }
        LOG.warn("Created publication '{}' for {} in database {} with publish_via_partition_root, because '{}' is set",
                config.publicationName(), list, config.database(), PostgresOptions.PUBLICATION_CREATE_IF_MISSING.key());
    }

    static String qualified(TableId t) {
        return PgLiterals.quoteIdentifier(t.schema()) + "." + PgLiterals.quoteIdentifier(t.table());
    }

    private static String currentUser(Connection c) throws SQLException {
        return single(c, "SELECT current_user");
    }

    private static String single(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
