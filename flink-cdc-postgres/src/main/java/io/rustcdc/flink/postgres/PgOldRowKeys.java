package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.model.TableId;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.annotation.Nullable;

/**
 * Which columns the WAL's old rows of a table's updates and deletes carry, by its REPLICA IDENTITY:
 * every column under FULL, the primary key's under DEFAULT, the named index's under USING INDEX,
 * none under NOTHING. Each partition of a partitioned table logs old rows by its own setting.
 */
final class PgOldRowKeys {
    private PgOldRowKeys() {}

    /**
     * What keeps {@code keyColumns} out of some old rows of {@code table} (or of one of its partitions),
     * with the statement that fixes it; null when every old row carries them.
     */
    @Nullable
    static String missing(Connection c, TableId table, List<String> keyColumns) throws SQLException {
        List<TableId> relations = new ArrayList<>(List.of(table));
        PgPartitions.leaves(c, table).forEach(leaf -> relations.add(leaf.table()));
        List<String> problems = new ArrayList<>();
        List<String> fixes = new ArrayList<>();
        List<String> notFull = new ArrayList<>();
        boolean rootLacks = false;
        try (PreparedStatement s = c.prepareStatement("SELECT c.relreplident, ARRAY(SELECT a.attname::text "
                + "FROM pg_catalog.pg_index i JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid "
                // the index's key columns: those it INCLUDEs are not in old rows
                + "AND a.attnum = ANY ((i.indkey::int2[])[0:i.indnkeyatts - 1]) "
                + "WHERE i.indrelid = c.oid AND CASE c.relreplident WHEN 'd' THEN i.indisprimary "
                + "WHEN 'i' THEN i.indisreplident ELSE false END ORDER BY a.attnum) "
                + "FROM pg_catalog.pg_class c WHERE c.oid = ?::regclass")) {
            for (TableId relation : relations) {
                s.setString(1, PgPrerequisites.qualified(relation));
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    String identity = rs.getString(1);
                    if ("f".equals(identity)) {
                        continue;
                    }
                    notFull.add(full(relation));
                    Array array = rs.getArray(2);
                    List<String> carried = Arrays.asList((String[]) array.getArray());
                    List<String> lacking = keyColumns.stream().filter(k -> !carried.contains(k)).toList();
                    if (!lacking.isEmpty()) {
                        rootLacks |= relation.equals(table);
                        problems.add(PgPrerequisites.qualified(relation) + " has " + identity(identity, carried)
                                + ", without " + String.join(", ", lacking));
                        fixes.add(full(relation));
                    }
                }
            }
        }
        if (problems.isEmpty()) {
            return null;
        }
        // a partitioned table of FULL needs FULL partitions (PgPrerequisites.requireReplicaIdentity): all in one go
        return String.join("; ", problems) + " (run " + String.join(" ", rootLacks ? notFull : fixes) + ")";
    }

    private static String full(TableId relation) {
        return "ALTER TABLE " + PgPrerequisites.qualified(relation) + " REPLICA IDENTITY FULL;";
    }

    private static String identity(String identity, List<String> carried) {
        String columns = "(" + String.join(", ", carried) + ")";
        if ("d".equals(identity)) {
            return carried.isEmpty() ? "REPLICA IDENTITY DEFAULT and no primary key, so old rows carry no column"
                    : "REPLICA IDENTITY DEFAULT, so old rows carry only its primary key " + columns;
        }
        return "i".equals(identity) ? "REPLICA IDENTITY USING INDEX, so old rows carry only that index's columns " + columns
                : "REPLICA IDENTITY NOTHING, so old rows carry no column";
    }
}
