package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.history.SchemaChange;
import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.TablePlan;
import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a source does once, at its very first start: discover the tables, check what the snapshot
 * needs and, for a streaming source, prepare the stream (PostgreSQL: slot and publication) before
 * any chunk is read, so the stream's start is no later than any chunk. Database work only: it
 * returns what it found and the enumerator takes it into its state.
 */
@Internal
final class FirstStart {
    private static final Logger LOG = LoggerFactory.getLogger(FirstStart.class);

    private FirstStart() {}

    /**
     * What the first start found.
     *
     * @param tables the captured tables, in the catalogue's order
     * @param streamStart where the stream starts; null when the source does not stream
     * @param descriptions each table's description, in the order of {@code tables}
     * @param plans the chunk plan of each table, when the source snapshots
     */
    record Result<P>(List<TableId> tables, @Nullable P streamStart, List<TableDescription> descriptions,
            List<TablePlan> plans) {
        Result {
            tables = List.copyOf(tables);
            descriptions = List.copyOf(descriptions);
            plans = List.copyOf(plans);
        }

        /** A schema history that starts with each table's shape as described now. */
        SchemaHistory history(Instant now, int retention) {
            SchemaHistory history = new SchemaHistory(retention);
            for (TableDescription description : descriptions) {
                history.recordDdl("shape:" + description.table().qualifiedName() + ":start",
                        SchemaChange.rowShape(description.table(), description.shape(), now));
            }
            return history;
        }
    }

    static <P extends SourcePosition & Comparable<P>, M extends Serializable> Result<P> run(CatalogSession<P, M> s,
            CdcConnector<P, M> connector, SourceSettings settings) {
        StartupMode mode = settings.startupMode();
        List<TableId> discovered = s.discoverTables(settings.filter());
        for (String entry : settings.filter().unqualifiedIncludes()) {
            LOG.warn("Include entry '{}' names no schema, so it captures that table name in every schema; write "
                    + "'schema.{}' when the schema matters", entry, entry);
        }
        if (discovered.isEmpty()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "No table of the " + connector.name()
                    + " source matches " + settings.filter() + "; check the include and exclude lists"
                    + " (and, for PostgreSQL, the tables of the publication)");
        }
        if (mode.snapshots()) {
            s.checkSnapshotPrerequisites(discovered);
        }
        P streamStart = null;
        if (mode.streams()) {
            streamStart = s.prepareStream(discovered, settings.fullBeforeImages());
            if (mode.kind() == StartupMode.Kind.LATEST) {
                P now = s.currentPosition();
                streamStart = now.compareTo(streamStart) > 0 ? now : streamStart;
            } else if (mode.kind() == StartupMode.Kind.POSITION) {
                streamStart = connector.parsePosition(mode.position());
            }
        }
        List<TableDescription> descriptions = new ArrayList<>();
        List<TablePlan> plans = new ArrayList<>();
        for (TableId table : discovered) {
            TableDescription description = s.describe(table);
            descriptions.add(description);
            if (mode.snapshots()) {
                plans.add(TableDiscovery.plan(s, connector, settings, description, null, null));
            }
        }
        return new Result<>(discovered, streamStart, descriptions, plans);
    }
}
