package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The user-defined types the captured tables' values are made of, checked at every slot check: a statement on a
 * type rewrites how the rows that hold its values read without logging a change of them, so downstream they keep
 * the old text. An enum label renamed ({@code ALTER TYPE ... RENAME VALUE}) and a composite type's attributes
 * added, dropped or retyped ({@code ALTER TYPE ... ADD ATTRIBUTE}) fail the stream ({@code STATE}), naming the
 * type and the change. Followed through arrays, domains, ranges, multiranges and nested composites; a label added ({@code ADD
 * VALUE}) and an attribute renamed change no value's text and pass. What the first check of a stream sees is its
 * baseline, unless the same connector instance opened a stream before (it was opened again after a connection
 * failure, a terminated walsender or a failover: {@link PgStreamChecks}), whose last check it goes on from. Not
 * found: a change made while the job was stopped or before its stream first opened (during its snapshot).
 */
final class PgValueTypeCheck {
    /**
     * Every type a column of the given relations is made of, then one row per enum label ({@code e}, the label's
     * OID, the type, the label twice) and per composite type ({@code c}, the type's OID, the type, its attributes'
     * type OIDs and modifiers, and their names, empty for none): compared by OID, so that a type renamed is no
     * change. {@code %s}: a multirange's range (PostgreSQL 14 and later), or nothing.
     */
    private static final String TYPES = "WITH RECURSIVE types(oid) AS ("
            + "SELECT a.atttypid FROM pg_catalog.pg_attribute a "
            + "WHERE a.attrelid = ANY (?) AND a.attnum > 0 AND NOT a.attisdropped "
            + "UNION SELECT n.next FROM types x JOIN pg_catalog.pg_type t ON t.oid = x.oid CROSS JOIN LATERAL ("
            + "SELECT t.typelem WHERE t.typelem <> 0 "
            + "UNION ALL SELECT t.typbasetype WHERE t.typbasetype <> 0 "
            + "UNION ALL SELECT r.rngsubtype FROM pg_catalog.pg_range r WHERE r.rngtypid = t.oid %s"
            + "UNION ALL SELECT a.atttypid FROM pg_catalog.pg_attribute a "
            + "WHERE t.typtype = 'c' AND a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped) n(next)) "
            + "SELECT 'e', e.oid, pg_catalog.format_type(e.enumtypid, NULL), e.enumlabel, e.enumlabel "
            + "FROM types JOIN pg_catalog.pg_enum e ON e.enumtypid = types.oid "
            + "UNION ALL SELECT 'c', t.oid, pg_catalog.format_type(t.oid, NULL), "
            + "COALESCE(pg_catalog.string_agg(a.atttypid || '/' || a.atttypmod, ',' ORDER BY a.attnum), ''), "
            + "COALESCE(pg_catalog.string_agg(pg_catalog.format_type(a.atttypid, a.atttypmod), ', ' "
            + "ORDER BY a.attnum), '') FROM types JOIN pg_catalog.pg_type t ON t.oid = types.oid AND t.typtype = 'c' "
            + "LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped "
            + "GROUP BY t.oid";
    private static final String MULTIRANGES =
            "UNION ALL SELECT r.rngtypid FROM pg_catalog.pg_range r WHERE r.rngmultitypid = t.oid ";

    private final String slot;
    /** What each enum label and composite type still reached read at the last check, by kind and OID. */
    private final Map<String, Seen> seen = new HashMap<>();

    PgValueTypeCheck(String slot) {
        this.slot = slot;
    }

    /** A check that goes on from what {@code earlier} saw. */
    PgValueTypeCheck(String slot, PgValueTypeCheck earlier) {
        this.slot = slot;
        synchronized (earlier) {
            seen.putAll(earlier.seen);
        }
    }

    /**
     * Reads the types of {@code relations} (relation OIDs) on {@code c} and fails when one seen at an earlier
     * check reads otherwise now.
     */
    synchronized void check(Connection c, Collection<Long> relations) throws SQLException {
        if (relations.isEmpty()) {
            return;
        }
        List<String> changes = new ArrayList<>();
        Set<String> reached = new HashSet<>();
        Array oids = c.createArrayOf("oid", relations.toArray());
        String sql = String.format(TYPES, c.getMetaData().getDatabaseMajorVersion() >= 14 ? MULTIRANGES : "");
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setArray(1, oids);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    String key = rs.getString(1) + rs.getLong(2);
                    reached.add(key);
                    Seen now = new Seen(rs.getString(3), rs.getString(4), rs.getString(5));
                    Seen before = seen.putIfAbsent(key, now);
                    if (before != null && !before.compared.equals(now.compared)) {
                        changes.add(describe(rs.getString(1), before, now));
                        seen.put(key, now);
                    }
                }
            }
        } finally {
            oids.free();
        }
        // a type no longer reached (its column dropped) is read anew if it is reached again
        seen.keySet().retainAll(reached);
        if (!changes.isEmpty()) {
            throw new CdcException(CdcException.Kind.STATE, String.join("; ", changes) + ", while slot '" + slot
                    + "' streamed the tables that hold its values: the rows that hold them read otherwise now, but no "
                    + "change of them was logged, so the changelog keeps their old text. Restart the job without its "
                    + "state with a new slot, so that the tables are snapshotted again (renaming a label back makes "
                    + "the old rows right, but not the rows written since the rename).");
        }
    }

    private static String describe(String kind, Seen before, Seen now) {
        if ("e".equals(kind)) {
            return "The label '" + before.value + "' of enum type " + now.type + " was renamed to '" + now.value
                    + "' (ALTER TYPE ... RENAME VALUE)";
        }
        return "The attributes of composite type " + now.type + " changed from (" + before.value + ") to ("
                + now.value + ") (ALTER TYPE ... ADD, DROP or ALTER ATTRIBUTE)";
    }

    /**
     * What a check read of an enum label (the label) or a composite type (its attributes' type OIDs and modifiers):
     * the text compared, the type's name and the text for messages.
     */
    private static final class Seen {
        final String type;
        final String compared;
        final String value;

        Seen(String type, String compared, String value) {
            this.type = type;
            this.compared = compared;
            this.value = value;
        }
    }
}
