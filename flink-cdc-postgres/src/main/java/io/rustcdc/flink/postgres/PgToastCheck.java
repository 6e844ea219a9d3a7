package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks, before the stream starts, that every update will carry the columns a table's consumer
 * requires ({@link PostgresSourceConfig#requiredInUpdates}). PostgreSQL leaves a value out of an
 * update's new row when the update did not change it and it is stored out of line (TOASTed), unless
 * the table has REPLICA IDENTITY FULL (then the whole old row is logged and the value taken from it).
 * A column can be stored out of line when its type is variable-length ({@code attlen = -1}: text,
 * varchar, bytea, json, jsonb, xml, numeric, arrays, ...), its storage is not {@code PLAIN}, its
 * table (or, for a partitioned table, one of its partitions) has a TOAST table, and its values can
 * exceed 24 bytes: PostgreSQL's toaster moves only larger values ({@code MAXALIGN(TOAST_POINTER_SIZE)}),
 * so a {@code varchar(n)} or {@code char(n)} of at most 24 bytes (4 + n times the encoding's longest
 * character) and a {@code numeric(p,s)} with p up to 29 never are. A column of the
 * replica identity is exempt: PostgreSQL logs the old key when one of its columns is stored out of
 * line, and the decoder fills the new row from it.
 */
final class PgToastCheck {
    private static final String TOASTABLE = "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), "
            + "c.relreplident FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid "
            + "WHERE a.attrelid = ?::pg_catalog.regclass AND a.attnum > 0 AND NOT a.attisdropped "
            + "AND a.attname = ANY (?) AND c.relreplident <> 'f' "
            // not a column of the replica identity: the primary key (DEFAULT) or the chosen index (USING INDEX)
            + "AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = a.attrelid "
            + "AND a.attnum = ANY ((i.indkey::int2[])[0:i.indnkeyatts - 1]) AND CASE c.relreplident WHEN 'd' THEN i.indisprimary "
            + "WHEN 'i' THEN i.indisreplident ELSE false END) "
            // variable-length, not PLAIN, in a table (or a leaf partition) that has a TOAST table
            + "AND EXISTS (SELECT 1 FROM pg_catalog.pg_class l JOIN pg_catalog.pg_attribute la ON la.attrelid = l.oid "
            + "AND la.attname = a.attname AND NOT la.attisdropped WHERE (l.oid = a.attrelid OR l.oid IN "
            + "(SELECT relid FROM pg_catalog.pg_partition_tree(a.attrelid) WHERE isleaf)) "
            + "AND l.reltoastrelid <> 0 AND la.attlen = -1 AND la.attstorage <> 'p') "
            // and not bounded to at most 24 bytes, which the toaster never moves out of line
            + "AND NOT (a.atttypmod >= 0 AND CASE WHEN a.atttypid IN ('pg_catalog.varchar'::pg_catalog.regtype, "
            + "'pg_catalog.bpchar'::pg_catalog.regtype) THEN 4 + (a.atttypmod - 4)::int8 * pg_catalog.pg_encoding_max_length("
            + "(SELECT d.encoding FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())) "
            + "WHEN a.atttypid = 'pg_catalog.numeric'::pg_catalog.regtype "
            + "THEN 8 + (((((a.atttypmod - 4) >> 16) & 65535) + 6) / 4) * 2 ELSE 2147483647 END <= 24) ORDER BY a.attnum";

    private PgToastCheck() {}

    /**
     * Fails with a {@link CdcException.Kind#PREREQUISITE} naming the table, the columns, who needs
     * them and the remedies, when an update of one of {@code tables} could leave out a column the
     * configuration requires; does nothing with {@code toast.reselect}, which reads such values back.
     */
    static void requireInUpdates(Connection c, PostgresSourceConfig config, List<TableId> tables) throws SQLException {
        if (config.toastReselect()) {
            return;
        }
        for (TableId table : tables) {
            PostgresSourceConfig.RequiredInUpdates required = config.requiredInUpdates(table);
            if (required == null || required.columns().isEmpty()) {
                continue;
            }
            List<String> columns = new ArrayList<>();
            String identity = null;
            try (PreparedStatement s = c.prepareStatement(TOASTABLE)) {
                s.setString(1, PgPrerequisites.qualified(table));
                s.setArray(2, c.createArrayOf("text", required.columns().toArray()));
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        columns.add(rs.getString(1) + " (" + rs.getString(2) + ")");
                        identity = rs.getString(3);
                    }
                }
            }
            if (!columns.isEmpty()) {
                throw new CdcException(CdcException.Kind.PREREQUISITE, "Column" + (columns.size() > 1 ? "s " : " ")
                        + String.join(", ", columns) + " of " + table.qualifiedName() + " can be stored out of line "
                        + "(TOASTed), and the table's REPLICA IDENTITY is " + identityName(identity) + ": an update "
                        + "that leaves such a value unchanged does not send it, but " + required.neededBy()
                        + " needs " + (columns.size() > 1 ? "each of them" : "it") + " in every update. Run ALTER TABLE "
                        + PgPrerequisites.qualified(table) + " REPLICA IDENTITY FULL; (updates and deletes then log "
                        + "whole old rows, which hold such values), or set '" + PostgresOptions.TOAST_RESELECT.key()
                        + "' = 'true' to read them from the table by key when an update lacks them (see its "
                        + "limits in the PostgreSQL connector's documentation).");
            }
        }
    }

    private static String identityName(String relreplident) {
        switch (relreplident) {
            case "d":
                return "DEFAULT";
            case "i":
                return "USING INDEX";
            case "n":
                return "NOTHING";
            default:
                return relreplident;
        }
    }
}
