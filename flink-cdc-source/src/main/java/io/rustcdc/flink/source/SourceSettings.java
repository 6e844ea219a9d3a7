package io.rustcdc.flink.source;

import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import java.io.Serializable;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/** What a {@link CdcSource} was built with, beyond its connector; validated by the builder. Immutable. */
@Internal
public final class SourceSettings implements Serializable {
    private static final long serialVersionUID = 1L;

    private final TableFilter filter;
    private final StartupMode startupMode;
    private final int chunkSize;
    private final Map<String, String> chunkKeyColumns;
    private final boolean fullBeforeImages;
    private final int checkpointsRetained;
    private final SinkGuarantee sinkGuarantee;
    private final Duration tableDiscoveryInterval;
    private final SchemaChangePolicy schemaChanges;
    private final TransactionBoundaries transactionBoundaries;
    private final int transactionMaxChanges;
    private final int schemaHistoryRetention;
    private final Map<String, String> rowFilters;
    @Nullable private final String rowFilter;

    SourceSettings(TableFilter filter, StartupMode startupMode, int chunkSize, Map<String, String> chunkKeyColumns,
            boolean fullBeforeImages, int checkpointsRetained, SinkGuarantee sinkGuarantee,
            Duration tableDiscoveryInterval, SchemaChangePolicy schemaChanges,
            TransactionBoundaries transactionBoundaries, int transactionMaxChanges, int schemaHistoryRetention,
            Map<String, String> rowFilters, @Nullable String rowFilter) {
        this.filter = Objects.requireNonNull(filter, "filter");
        this.startupMode = Objects.requireNonNull(startupMode, "startupMode");
        this.chunkSize = chunkSize;
        this.chunkKeyColumns = Map.copyOf(chunkKeyColumns);
        this.fullBeforeImages = fullBeforeImages;
        this.checkpointsRetained = checkpointsRetained;
        this.sinkGuarantee = Objects.requireNonNull(sinkGuarantee, "sinkGuarantee");
        this.tableDiscoveryInterval = Objects.requireNonNull(tableDiscoveryInterval, "tableDiscoveryInterval");
        this.schemaChanges = Objects.requireNonNull(schemaChanges, "schemaChanges");
        this.transactionBoundaries = Objects.requireNonNull(transactionBoundaries, "transactionBoundaries");
        this.transactionMaxChanges = transactionMaxChanges;
        this.schemaHistoryRetention = schemaHistoryRetention;
        this.rowFilters = Map.copyOf(rowFilters);
        this.rowFilter = rowFilter;
    }

    public TableFilter filter() {
        return filter;
    }

    public StartupMode startupMode() {
        return startupMode;
    }

    public int chunkSize() {
        return chunkSize;
    }

    /** The configured chunk key column of {@code table}, or null for its primary key. */
    @Nullable
    public String chunkKeyColumn(TableId table) {
        return chunkKeyColumns.get(table.qualifiedName());
    }

    /**
     * The configured row filter of {@code table}'s snapshots (a raw, trusted SQL condition): its own,
     * else the one of every table ({@link CdcSourceOptions#SNAPSHOT_FILTER}); null for every row.
     */
    @Nullable
    public String rowFilter(TableId table) {
        String own = rowFilters.get(table.qualifiedName());
        return own != null ? own : rowFilter;
    }

    /** Where {@code table}'s configured row filter comes from, for messages: the option or builder method. */
    public String rowFilterOrigin(TableId table) {
        return rowFilters.containsKey(table.qualifiedName()) ? "rowFilter(\"" + table.qualifiedName() + "\", ...)"
                : "'" + CdcSourceOptions.SNAPSHOT_FILTER.key() + "'";
    }

    /** Whether updates and deletes must carry whole old rows (a changelog with update-before rows). */
    public boolean fullBeforeImages() {
        return fullBeforeImages;
    }

    public int checkpointsRetained() {
        return checkpointsRetained;
    }

    public SinkGuarantee sinkGuarantee() {
        return sinkGuarantee;
    }

    /** How often the enumerator looks for new tables; zero for only at start and restore. */
    public Duration tableDiscoveryInterval() {
        return tableDiscoveryInterval;
    }

    /** What the source does when a captured table's shape changes. */
    public SchemaChangePolicy schemaChanges() {
        return schemaChanges;
    }

    /** Whether a checkpoint may fall inside a source transaction. */
    public TransactionBoundaries transactionBoundaries() {
        return transactionBoundaries;
    }

    /** Under {@link TransactionBoundaries#PRESERVE}, the most changes of a transaction emitted between two checkpoints. */
    public int transactionMaxChanges() {
        return transactionMaxChanges;
    }

    /** How many entries of each table the schema history keeps. */
    public int schemaHistoryRetention() {
        return schemaHistoryRetention;
    }

    @Override
    public String toString() {
        return "SourceSettings{" + filter + ", startup=" + startupMode + ", chunkSize=" + chunkSize
                + ", chunkKeys=" + chunkKeyColumns + ", rowFilters=" + rowFilters + ", rowFilter=" + rowFilter
                + ", fullBeforeImages=" + fullBeforeImages
                + ", checkpointsRetained=" + checkpointsRetained + ", sinkGuarantee=" + sinkGuarantee
                + ", tableDiscoveryInterval=" + tableDiscoveryInterval + ", schemaChanges=" + schemaChanges
                + ", transactionBoundaries=" + transactionBoundaries + ", transactionMaxChanges=" + transactionMaxChanges
                + ", schemaHistoryRetention=" + schemaHistoryRetention + "}";
    }
}
