package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Partitioned tables (relkind {@code p}) as the connector captures them: each as one table under
 * its root's name, read through the root and streamed through a publication with {@code
 * publish_via_partition_root}, never its partitions one by one. Not thread-safe.
 */
final class PgPartitions {
    private PgPartitions() {}

    /** A leaf partition, its REPLICA IDENTITY setting and whether it has a primary key. */
    record Leaf(TableId table, String identity, boolean hasKey) {}

    /**
     * Fails when {@code filter} selects a partition (at any level) whose root it does not select:
     * its changes arrive under the root's name only, so it cannot be captured alone. A partition
     * selected together with its root is captured as part of the root, not again by itself.
     */
    static void requireRootsSelected(Connection c, String database, TableFilter filter) throws SQLException {
        Map<String, List<String>> orphans = new TreeMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT n.nspname, p.relname, rn.nspname, r.relname "
                + "FROM pg_catalog.pg_class p JOIN pg_catalog.pg_namespace n ON n.oid = p.relnamespace "
                + "JOIN pg_catalog.pg_class r ON r.oid = pg_catalog.pg_partition_root(p.oid) "
                + "JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace "
                + "WHERE p.relispartition AND p.relkind IN ('r', 'p') ORDER BY 1, 2")) {
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    TableId partition = TableId.of(database, rs.getString(1), rs.getString(2));
                    TableId root = TableId.of(database, rs.getString(3), rs.getString(4));
                    if (filter.matches(partition) && !filter.matches(root)) {
                        orphans.computeIfAbsent(root.qualifiedName(), k -> new ArrayList<>()).add(partition.qualifiedName());
                    }
                }
            }
        }
        if (!orphans.isEmpty()) {
            StringBuilder which = new StringBuilder();
            orphans.forEach((root, partitions) -> which.append(which.length() == 0 ? "" : "; ")
                    .append(String.join(", ", partitions)).append(" of ").append(root));
            throw new CdcException(CdcException.Kind.CONFIGURATION, "The include list selects partitions without "
                    + "their partitioned table (" + which + "). A partitioned table is captured as one table, "
                    + "under its root's name, which is where its changes arrive: include the root "
                    + String.join(", ", orphans.keySet()) + " instead, or exclude the partitions too.");
        }
    }

    /** The partitioned tables (relkind {@code p}) among {@code tables}, by qualified, quoted name. */
    static List<String> partitioned(Connection c, List<TableId> tables) throws SQLException {
        List<String> partitioned = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(
                "SELECT relkind = 'p' FROM pg_catalog.pg_class WHERE oid = ?::regclass")) {
            for (TableId t : tables) {
                s.setString(1, PgPrerequisites.qualified(t));
                try (ResultSet rs = s.executeQuery()) {
                    if (rs.next() && rs.getBoolean(1)) {
                        partitioned.add(PgPrerequisites.qualified(t));
                    }
                }
            }
        }
        return partitioned;
    }

    /**
     * The leaf partitions of {@code table} (none when it is not partitioned), whose own REPLICA
     * IDENTITY decides which old row values the WAL holds: it is not inherited from the root.
     */
    static List<Leaf> leaves(Connection c, TableId table) throws SQLException {
        List<Leaf> leaves = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT n.nspname, p.relname, p.relreplident, "
                + "EXISTS (SELECT 1 FROM pg_catalog.pg_index i "
                + "WHERE i.indrelid = p.oid AND i.indisprimary) FROM pg_catalog.pg_partition_tree(?::regclass) t "
                + "JOIN pg_catalog.pg_class p ON p.oid = t.relid JOIN pg_catalog.pg_namespace n ON n.oid = p.relnamespace "
                + "WHERE t.isleaf AND t.level > 0 ORDER BY 1, 2")) {
            s.setString(1, PgPrerequisites.qualified(table));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    leaves.add(new Leaf(TableId.of(table.database(), rs.getString(1), rs.getString(2)), rs.getString(3),
                            rs.getBoolean(4)));
                }
            }
        }
        return leaves;
    }
}
