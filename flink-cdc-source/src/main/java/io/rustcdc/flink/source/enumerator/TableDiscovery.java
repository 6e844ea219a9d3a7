package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.TablePlan;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the tables the include list matches that the source does not capture yet, checks and
 * prepares them as at a first start, and plans their chunks. Does database I/O through the session
 * it is given and touches no enumerator state: it runs on the enumerator's worker thread.
 */
@Internal
final class TableDiscovery<P extends SourcePosition & Comparable<P>, M extends Serializable> {
    private static final Logger LOG = LoggerFactory.getLogger(TableDiscovery.class);

    private final CdcConnector<P, M> connector;
    private final SourceSettings settings;

    TableDiscovery(CdcConnector<P, M> connector, SourceSettings settings) {
        this.connector = connector;
        this.settings = settings;
    }

    /**
     * Finds, prepares and describes, through {@code s}, the tables not in {@code captured}; no enumerator state is
     * touched. A table whose prerequisites fail fails the call when {@code strict}; otherwise it is
     * left for the next look, with a WARN naming what is missing (a table just created often gets its
     * grants a moment later, and its snapshot, whenever it comes, holds every change until then).
     */
    List<Found> find(CatalogSession<P, M> s, Set<TableId> captured, boolean strict) {
        List<TableId> tablesFound = new ArrayList<>();
        List<Found> found = new ArrayList<>();
        for (TableId table : s.discoverTables(settings.filter())) {
            if (!captured.contains(table) && (strict || ready(s, table))) {
                tablesFound.add(table);
            }
        }
        if (tablesFound.isEmpty()) {
            return found;
        }
        s.checkSnapshotPrerequisites(tablesFound);
        s.prepareStream(tablesFound, settings.fullBeforeImages());
        for (TableId table : tablesFound) {
            TableDescription description = s.describe(table);
            TablePlan plan;
            try {
                plan = plan(s, connector, settings, description, null, null);
            } catch (CdcException e) {
                if (strict || e.kind() != CdcException.Kind.PREREQUISITE) {
                    throw e;
                }
                leftForLater(table, e);
                continue;
            }
            found.add(new Found(plan, description));
        }
        return found;
    }

    /**
     * The chunk plan of a snapshot of {@code description}'s table, of the rows {@code requested} selects,
     * or (null) the configured row filter's; the filter is checked by the database first.
     *
     * @param request the request that brought {@code requested}, for the message
     * @throws CdcException (configuration) naming the table, where the filter comes from and the database's
     *     message, when the database rejects the filter
     */
    static <P extends SourcePosition & Comparable<P>, M extends Serializable> TablePlan plan(CatalogSession<P, M> s,
            CdcConnector<P, M> connector, SourceSettings settings, TableDescription description,
            @Nullable String requested, @Nullable String request) {
        TableId table = description.table();
        ChunkKey key = key(s, connector, settings, description);
        String rowFilter = requested != null ? requested : settings.rowFilter(table);
        if (rowFilter != null) {
            String problem = s.rowFilterProblem(description, rowFilter);
            if (problem != null) {
                String origin = requested != null ? "the row filter of control request " + request
                        : "the row filter " + settings.rowFilterOrigin(table);
                throw new CdcException(CdcException.Kind.CONFIGURATION, "The " + connector.name() + " database rejects "
                        + origin + " for table " + table + ", [" + rowFilter + "]: " + problem
                        + "; correct the condition (a SQL condition on the table's columns, in the database's dialect)");
            }
        }
        return TablePlan.start(table, key, rowFilter);
    }

    /**
     * The chunk key of {@code description}'s table, checked as a source that streams needs it.
     *
     * @throws CdcException (configuration) when the key cannot be found or is not in the primary key; (prerequisite)
     *     when the stream's old rows lack it
     */
    static <P extends SourcePosition & Comparable<P>, M extends Serializable> ChunkKey key(CatalogSession<P, M> s,
            CdcConnector<P, M> connector, SourceSettings settings, TableDescription description) {
        String configured = settings.chunkKeyColumn(description.table());
        ChunkKey key = ChunkKey.of(description, connector.keyOrder(), configured, CdcSourceOptions.CHUNK_KEY_COLUMNS.key());
        if (settings.startupMode().streams()) {
            ChunkKey.requireInPrimaryKey(description, configured, CdcSourceOptions.CHUNK_KEY_COLUMNS.key());
            requireKeyInOldRows(s, connector, description, key, configured != null);
        }
        return key;
    }

    /**
     * Fails when the stream's old rows of {@code table}'s updates and deletes may lack its chunk key: the
     * handoff places those changes among the chunks by it, so a delete would fail the reader on every restart
     * and an update moving a row from a chunk read to one not read yet would deliver the row twice.
     */
    private static <P extends SourcePosition & Comparable<P>, M extends Serializable> void requireKeyInOldRows(
            CatalogSession<P, M> s, CdcConnector<P, M> connector, TableDescription description, ChunkKey key,
            boolean configured) {
        TableId table = description.table();
        String problem = s.keyMissingFromOldRows(table, key.columns());
        if (problem == null) {
            return;
        }
        String option = CdcSourceOptions.CHUNK_KEY_COLUMNS.key();
        String origin = configured ? "configured by '" + option + "'" : "its primary key";
        // with a primary key, the chunk key must be in it (ChunkKey.requireInPrimaryKey): no other column to offer
        String other = description.shape().primaryKey().isEmpty()
                ? ", or split the table by a column they carry ('" + option + "')." : ".";
        throw new CdcException(CdcException.Kind.PREREQUISITE, "The chunk key " + key.columns() + " of table "
                + table.qualifiedName() + " (" + origin + ") is not in every old row of its updates and deletes in the "
                + connector.name() + " change stream: " + problem + ". The handoff from the table's snapshot to its "
                + "stream places updates and deletes among the chunks by that key (without it a delete would fail the "
                + "source and an update could deliver a row twice). Make the old rows carry the key as said" + other);
    }

    /**
     * Resolves {@code names} ({@code schema.table}) against the catalogue, through {@code s}, for an
     * on-demand snapshot: every name must be a table the include list matches, or none is resolved.
     * A table not in {@code captured} is checked and prepared as at a first start; a captured one is
     * only described.
     *
     * @throws CdcException (configuration) naming every name that matches no table, with the remedy;
     *     (prerequisite) when a table not captured yet cannot be
     */
    List<Found> resolve(CatalogSession<P, M> s, List<String> names, Set<TableId> captured) {
        return resolve(s, names, captured, java.util.Map.of(), null);
    }

    /**
     * {@link #resolve(CatalogSession, List, Set)}, with the row filters of request {@code request} by table
     * name ({@code schema.table}; a table without one keeps its configured filter); a filter naming a table
     * not among {@code names}, or one the database rejects, resolves nothing.
     */
    List<Found> resolve(CatalogSession<P, M> s, List<String> names, Set<TableId> captured,
            java.util.Map<String, String> rowFilters, @Nullable String request) {
        for (String filtered : rowFilters.keySet()) {
            if (!names.contains(filtered)) {
                throw new CdcException(CdcException.Kind.CONFIGURATION, "The request has a row filter for "
                        + filtered + ", which is not among its tables " + names + "; nothing was requested");
            }
        }
        java.util.Map<String, TableId> byName = new java.util.HashMap<>();
        for (TableId t : s.discoverTables(settings.filter())) {
            byName.put(t.qualifiedName(), t);
        }
        List<String> missing = new ArrayList<>();
        List<TableId> tables = new ArrayList<>();
        for (String name : names) {
            TableId t = byName.get(name);
            if (t == null) {
                missing.add(name);
            } else if (!tables.contains(t)) {
                tables.add(t);
            }
        }
        if (!missing.isEmpty()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "No table " + missing + " of the "
                    + connector.name() + " source's database matches its include list (name each as schema.table, "
                    + "among the tables the include list matches; a table it does not match needs the include list "
                    + "changed and a restart from a savepoint); nothing was requested");
        }
        List<TableId> fresh = tables.stream().filter(t -> !captured.contains(t)).toList();
        if (!fresh.isEmpty()) {
            s.checkSnapshotPrerequisites(fresh);
            s.prepareStream(fresh, settings.fullBeforeImages());
        }
        List<Found> found = new ArrayList<>();
        for (TableId table : tables) {
            TableDescription description = s.describe(table);
            found.add(new Found(plan(s, connector, settings, description, rowFilters.get(table.qualifiedName()),
                    request), description));
        }
        return found;
    }

    private boolean ready(CatalogSession<P, M> s, TableId table) {
        try {
            s.checkSnapshotPrerequisites(List.of(table));
            s.prepareStream(List.of(table), settings.fullBeforeImages());
            return true;
        } catch (CdcException e) {
            if (e.kind() != CdcException.Kind.PREREQUISITE) {
                throw e;
            }
            leftForLater(table, e);
            return false;
        }
    }

    private void leftForLater(TableId table, CdcException e) {
        LOG.warn("Table {} matches the include list of the {} source but cannot be captured yet; its changes are "
                + "left out until it can, and then its snapshot holds them. {}", table, connector.name(), e.getMessage());
    }

    /** A table found by {@link #find}, with its chunk plan. */
    static final class Found {
        final TablePlan plan;
        final TableDescription description;

        Found(TablePlan plan, TableDescription description) {
            this.plan = plan;
            this.description = description;
        }
    }
}
