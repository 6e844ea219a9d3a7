package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The publication a slot streams, checked again at every slot check: pgoutput reads it as of each change,
 * so one altered while streaming leaves changes out of the slot's decoding without a word. It must still
 * publish every operation, carry every captured table it carried at an earlier check (unless the table is
 * gone), with no row filter, and publish a captured partitioned table's partitions under its name; and the
 * tables must still be logged, with a replica identity that fits (a partition created since included). A
 * publication dropped is found by pgoutput ({@link PostgresChangeStream}). A captured table left out of the
 * publication between two checks and carried again is found by its memberships' new OIDs in {@code
 * pg_publication_rel} ({@code pg_publication_namespace}). A stream opened again by the same connector instance
 * goes on from the last stream's check ({@link PgStreamChecks}). Not found: its options altered and altered back
 * between two checks, and a table dropped from it and added back while the job was stopped or before its stream
 * first opened.
 */
final class PgPublicationCheck {
    /** SQLSTATEs of a table or schema named that no longer exists: undefined_table, invalid_schema_name. */
    private static final Set<String> GONE = Set.of("42P01", "3F000");

    private final PostgresSourceConfig config;
    private final TableFilter filter;
    /** The captured tables the publication carried at a check, by relation OID (a rename keeps it). */
    private final Map<Long, TableId> carried = new TreeMap<>();
    /** The memberships that covered each captured table at the last check, by relation OID (see requireSameMemberships). */
    private final Map<Long, Set<Long>> coverings = new HashMap<>();
    /** Each table membership at the last check, by its OID. */
    private final Map<Long, TableMembership> definitions = new HashMap<>();

    PgPublicationCheck(PostgresSourceConfig config, TableFilter filter) {
        this.config = config;
        this.filter = filter;
    }

    /** A check that goes on from what {@code earlier} saw of the tables {@code filter} captures. */
    PgPublicationCheck(PostgresSourceConfig config, TableFilter filter, PgPublicationCheck earlier) {
        this(config, filter);
        synchronized (earlier) {
            earlier.carried.forEach((oid, table) -> {
                if (filter.matches(table)) {
                    carried.put(oid, table);
                    Set<Long> covering = earlier.coverings.get(oid);
                    if (covering != null) {
                        coverings.put(oid, new HashSet<>(covering));
                    }
                }
            });
            definitions.putAll(earlier.definitions);
        }
    }

    /**
     * The captured tables the publication carried at the checks so far, by relation OID: after the first
     * check (when the stream opens), what the stream captures as it opens.
     */
    synchronized Map<Long, TableId> carried() {
        return Map.copyOf(carried);
    }

    /** Checks the publication on {@code c}. */
    synchronized void check(Connection c) throws SQLException {
        String pub = config.publicationName();
        if (pub == null) {
            return;
        }
        boolean viaRoot;
        try (var s = c.prepareStatement("SELECT pubinsert AND pubupdate AND pubdelete AND pubtruncate, pubviaroot "
                + "FROM pg_catalog.pg_publication WHERE pubname = ?")) {
            s.setString(1, pub);
            try (var rs = s.executeQuery()) {
                if (!rs.next()) {
                    return;
                }
                if (!rs.getBoolean(1)) {
                    throw altered("no longer publishes every operation", "Publish them (ALTER PUBLICATION "
                            + PgLiterals.quoteIdentifier(pub) + " SET (publish = 'insert, update, delete, truncate');)");
                }
                viaRoot = rs.getBoolean(2);
            }
        }
        Published published = published(c, pub);
        requireStillCarried(c, pub, published.tables);
        try {
            requireTables(c, pub, viaRoot, published);
        } catch (SQLException e) {
            if (!GONE.contains(e.getSQLState())) {
                throw e;
            }
            // a table (or its schema) dropped since it was listed: no loss; the next check lists the tables again
        }
        requireSameMemberships(c, pub);
    }

    /** The rules {@link PgPrerequisites} checks of the captured tables when the stream is prepared. */
    private void requireTables(Connection c, String pub, boolean viaRoot, Published published) throws SQLException {
        List<TableId> tables = new ArrayList<>(published.tables.values());
        try {
            if (!viaRoot) {
                PgPrerequisites.requireNoPartitioned(c, pub, tables);
            }
            PgPrerequisites.requireNoRowFilter(pub, tables, published.rowFilters);
            PgPrerequisites.requireLogged(c, tables);
            // a partition created or attached since needs the identity its root's old rows promise
            PgPrerequisites.requireReplicaIdentity(c, tables, false);
        } catch (CdcException e) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, e.getMessage() + " " + streamingRemedy());
        }
    }

    /** The captured tables {@code pub} carries now (partitions as their root), and their row filters. */
    private Published published(Connection c, String pub) throws SQLException {
        boolean hasRowFilters = c.getMetaData().getDatabaseMajorVersion() >= 15;
        Published published = new Published();
        try (PreparedStatement s = c.prepareStatement("SELECT r.oid, rn.nspname, r.relname, "
                + (hasRowFilters ? "t.rowfilter" : "NULL") + " " + PgCatalog.PUBLISHED_ROOTS)) {
            s.setString(1, pub);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    TableId table = TableId.of(config.database(), rs.getString(2), rs.getString(3));
                    if (filter.matches(table)) {
                        published.tables.put(rs.getLong(1), table);
                        if (rs.getString(4) != null) {
                            published.rowFilters.put(PgPrerequisites.qualified(table), rs.getString(4));
                        }
                    }
                }
            }
        }
        return published;
    }

    /** Every table carried at an earlier check is carried still, or is gone (dropped: nothing to lose). */
    private void requireStillCarried(Connection c, String pub, Map<Long, TableId> now) throws SQLException {
        List<Long> dropped = carried.keySet().stream().filter(oid -> !now.containsKey(oid)).collect(Collectors.toList());
        carried.putAll(now);
        if (dropped.isEmpty()) {
            return;
        }
        List<String> existing = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT n.nspname, c.relname FROM pg_catalog.pg_class c "
                + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = ?")) {
            for (long oid : dropped) {
                s.setLong(1, oid);
                try (ResultSet rs = s.executeQuery()) {
                    if (rs.next()) {
                        existing.add(PgPrerequisites.qualified(TableId.of(config.database(), rs.getString(1),
                                rs.getString(2))));
                    } else {
                        carried.remove(oid);
                    }
                }
            }
        }
        if (!existing.isEmpty()) {
            throw altered("no longer carries " + String.join(", ", existing) + ", which this source captures",
                    "Add " + (existing.size() == 1 ? "it" : "them") + " back (ALTER PUBLICATION "
                    + PgLiterals.quoteIdentifier(pub) + " ADD TABLE " + String.join(", ", existing) + ";)");
        }
    }

    /**
     * Every captured table is covered by a membership it was covered by at the last check, if it was covered then
     * and is now: by its own row in {@code pg_publication_rel} or its partitions', its schema's in {@code
     * pg_publication_namespace} (15+), or the publication itself when it is {@code FOR ALL TABLES}. A table whose
     * memberships are all new was left out of the publication in between (dropped and added back, or moved between
     * its own and its schema's membership), and pgoutput left its changes then out. A row set anew by {@code SET
     * TABLE} with another row filter or column list (15+) is no gap. Run after the other checks, whose messages are
     * more precise.
     */
    private void requireSameMemberships(Connection c, String pub) throws SQLException {
        boolean since15 = c.getMetaData().getDatabaseMajorVersion() >= 15;
        String sql = "SELECT m.oid, COALESCE(pg_catalog.pg_partition_root(m.prrelid), m.prrelid)::oid, NULL::name, "
                + "m.prrelid, " + (since15 ? "COALESCE(m.prattrs::text, '') || '|' || "
                        + "COALESCE(pg_catalog.pg_get_expr(m.prqual, m.prrelid), '')" : "''") + " "
                + "FROM pg_catalog.pg_publication_rel m JOIN pg_catalog.pg_publication p ON p.oid = m.prpubid "
                + "WHERE p.pubname = ?"
                + (since15 ? " UNION ALL SELECT m.oid, NULL::oid, n.nspname, NULL::oid, NULL "
                        + "FROM pg_catalog.pg_publication_namespace m JOIN pg_catalog.pg_publication p ON p.oid = m.pnpubid "
                        + "JOIN pg_catalog.pg_namespace n ON n.oid = m.pnnspid WHERE p.pubname = ?" : "")
                + " UNION ALL SELECT p.oid, NULL::oid, NULL::name, NULL::oid, NULL FROM pg_catalog.pg_publication p "
                + "WHERE p.pubname = ? AND p.puballtables";
        Map<Long, Set<Long>> covering = new HashMap<>();
        Map<Long, TableMembership> defined = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 1; i <= (since15 ? 3 : 2); i++) {
                s.setString(i, pub);
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    long membership = rs.getLong(1);
                    long root = rs.getLong(2);
                    boolean byTable = !rs.wasNull();
                    String schema = rs.getString(3);
                    long member = rs.getLong(4);
                    if (!rs.wasNull()) {
                        defined.put(membership, new TableMembership(member, rs.getString(5)));
                    }
                    carried.forEach((oid, table) -> {
                        if (byTable ? oid == root : schema == null || schema.equals(table.schema())) {
                            covering.computeIfAbsent(oid, k -> new HashSet<>()).add(membership);
                        }
                    });
                }
            }
        }
        List<String> gaps = new ArrayList<>();
        covering.forEach((oid, now) -> {
            Set<Long> before = coverings.get(oid);
            if (before != null && !before.isEmpty() && Collections.disjoint(before, now) && !setAnew(before, now, defined)) {
                gaps.add(PgPrerequisites.qualified(carried.get(oid)));
            }
        });
        coverings.clear();
        coverings.putAll(covering);
        definitions.clear();
        definitions.putAll(defined);
        if (!gaps.isEmpty()) {
            throw altered("left out " + String.join(", ", gaps) + ", which this source captures, since the last slot "
                    + "check and carries it again (dropped from it and added back, or moved between its own and its "
                    + "schema's membership), so pgoutput left its changes in between out", "Keep it in the publication");
        }
    }

    /** Whether a table's memberships are rows of the same tables as before with another row filter or column list. */
    private boolean setAnew(Set<Long> before, Set<Long> now, Map<Long, TableMembership> defined) {
        Set<Long> tablesBefore = new HashSet<>();
        for (long m : before) {
            TableMembership was = definitions.get(m);
            if (was == null) {
                return false;
            }
            tablesBefore.add(was.relation);
        }
        Set<Long> tablesNow = new HashSet<>();
        for (long m : now) {
            TableMembership is = defined.get(m);
            if (is == null || before.stream().anyMatch(b -> is.equals(definitions.get(b)))) {
                return false;
            }
            tablesNow.add(is.relation);
        }
        return tablesBefore.equals(tablesNow);
    }

    /** A table's row in {@code pg_publication_rel}: the table it lists and its column list and row filter (15+). */
    private record TableMembership(long relation, String definition) {}

    private CdcException altered(String what, String fix) {
        return new CdcException(CdcException.Kind.PREREQUISITE, "Publication '" + config.publicationName() + "' "
                + what + ": it was " + alteredSince() + ", and pgoutput leaves what it no longer publishes out of the "
                + "changes after the change, which this slot cannot decode again. " + fix + ", then restart the job "
                + "without its state with a new slot, so that the tables are snapshotted again.");
    }

    private String alteredSince() {
        return "altered after the stream of slot '" + config.slotName() + "' was prepared (while it streamed or while "
                + "the job was stopped)";
    }

    private String streamingRemedy() {
        return "It changed after the stream of slot '" + config.slotName() + "' was prepared (while it streamed or while "
                + "the job was stopped): the changes since then were decoded so, so after fixing it restart the job "
                + "without its state with a new slot, so that the tables are snapshotted again.";
    }

    /** The captured tables a publication carries, by relation OID, and their row filters by qualified name. */
    private static final class Published {
        final Map<Long, TableId> tables = new TreeMap<>();
        final Map<String, String> rowFilters = new TreeMap<>();
    }
}
