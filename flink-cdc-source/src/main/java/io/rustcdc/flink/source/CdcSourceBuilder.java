package io.rustcdc.flink.source;

import io.rustcdc.flink.source.control.ControlDirectory;
import io.rustcdc.flink.source.control.ControlOptions;
import io.rustcdc.flink.source.control.ControlSettings;

import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.spi.CdcConnector;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ReadableConfig;

/**
 * Builds a {@link CdcSource}; {@link #build()} checks every setting and says what to fix. Not
 * thread-safe.
 */
@PublicEvolving
public final class CdcSourceBuilder<T, P extends SourcePosition & Comparable<P>, M extends Serializable> {
    private final CdcConnector<P, M> connector;
    private final ChangeEventDeserializer<T> deserializer;
    private final List<String> include = new ArrayList<>();
    private final List<String> exclude = new ArrayList<>();
    private StartupMode startupMode = StartupMode.initial();
    private int chunkSize = CdcSourceOptions.CHUNK_SIZE.defaultValue();
    private final Map<String, String> chunkKeyColumns = new HashMap<>();
    private final Map<String, String> rowFilters = new HashMap<>();
    private String rowFilter;
    private boolean fullBeforeImages;
    private int checkpointsRetained = CdcSourceOptions.CHECKPOINTS_RETAINED.defaultValue();
    private SinkGuarantee sinkGuarantee = CdcSourceOptions.SINK_GUARANTEE.defaultValue();
    private Duration tableDiscoveryInterval = CdcSourceOptions.TABLE_DISCOVERY_INTERVAL.defaultValue();
    private SchemaChangePolicy schemaChanges = CdcSourceOptions.SCHEMA_CHANGES.defaultValue();
    private TransactionBoundaries transactionBoundaries = CdcSourceOptions.TRANSACTION_BOUNDARIES.defaultValue();
    private int transactionMaxChanges = CdcSourceOptions.TRANSACTION_MAX_CHANGES.defaultValue();
    private int schemaHistoryRetention = CdcSourceOptions.SCHEMA_HISTORY_RETENTION.defaultValue();
    private String controlPath;
    private Duration controlInterval = ControlOptions.CONTROL_INTERVAL.defaultValue();

    CdcSourceBuilder(CdcConnector<P, M> connector, ChangeEventDeserializer<T> deserializer) {
        this.connector = Objects.requireNonNull(connector, "connector");
        this.deserializer = Objects.requireNonNull(deserializer, "deserializer");
    }

    private <U> CdcSourceBuilder<U, P, M> copyWith(ChangeEventDeserializer<U> other) {
        CdcSourceBuilder<U, P, M> b = new CdcSourceBuilder<>(connector, other);
        b.include.addAll(include);
        b.exclude.addAll(exclude);
        b.startupMode = startupMode;
        b.chunkSize = chunkSize;
        b.chunkKeyColumns.putAll(chunkKeyColumns);
        b.rowFilters.putAll(rowFilters);
        b.rowFilter = rowFilter;
        b.fullBeforeImages = fullBeforeImages;
        b.checkpointsRetained = checkpointsRetained;
        b.sinkGuarantee = sinkGuarantee;
        b.tableDiscoveryInterval = tableDiscoveryInterval;
        b.schemaChanges = schemaChanges;
        b.transactionBoundaries = transactionBoundaries;
        b.transactionMaxChanges = transactionMaxChanges;
        b.schemaHistoryRetention = schemaHistoryRetention;
        b.controlPath = controlPath;
        b.controlInterval = controlInterval;
        return b;
    }

    /** What the source emits for each event. */
    public <U> CdcSourceBuilder<U, P, M> deserializer(ChangeEventDeserializer<U> deserializer) {
        return copyWith(deserializer);
    }

    /** Glob patterns of {@code schema.table} to capture (see {@link TableFilter}). */
    public CdcSourceBuilder<T, P, M> includeTables(String... patterns) {
        include.addAll(List.of(patterns));
        return this;
    }

    /** Glob patterns of {@code schema.table} not to capture, when no include pattern is given. */
    public CdcSourceBuilder<T, P, M> excludeTables(String... patterns) {
        exclude.addAll(List.of(patterns));
        return this;
    }

    public CdcSourceBuilder<T, P, M> startupMode(StartupMode mode) {
        this.startupMode = Objects.requireNonNull(mode, "mode");
        return this;
    }

    /** Rows per snapshot chunk (default 50,000). The rows stream out as read; a checkpoint waits for the chunk's end. */
    public CdcSourceBuilder<T, P, M> chunkSize(int rows) {
        this.chunkSize = rows;
        return this;
    }

    /** Splits {@code table} ({@code schema.table}) by {@code column} instead of its primary key. */
    public CdcSourceBuilder<T, P, M> chunkKeyColumn(String table, String column) {
        chunkKeyColumns.put(table, column);
        return this;
    }

    /**
     * Snapshots only the rows of {@code table} ({@code schema.table}; MySQL: {@code database.table})
     * that satisfy {@code condition}, a SQL condition in the database's dialect that each chunk's
     * query gets as {@code AND (<condition>)}, e.g. {@code rowFilter("public.orders", "region = 'EU'")}.
     * The stream still emits every change of the table. It applies to every snapshot of the table: at the
     * first start, when it is found later, and when it is requested (unless the request brings its own).
     * Raw SQL, trusted like the rest of the job's configuration: never build it from user data. Checked
     * against the table when its snapshot starts: a condition the database rejects fails with its message.
     */
    public CdcSourceBuilder<T, P, M> rowFilter(String table, String condition) {
        rowFilters.put(Objects.requireNonNull(table, "table"), Objects.requireNonNull(condition, "condition"));
        return this;
    }

    /** Requires whole old rows in updates and deletes (PostgreSQL: REPLICA IDENTITY FULL), checked at start. */
    public CdcSourceBuilder<T, P, M> requireFullBeforeImages(boolean required) {
        this.fullBeforeImages = required;
        return this;
    }

    /**
     * Confirms to the database only the position of the n-th newest completed checkpoint (default
     * 1), so that the job can be restored from any of its n newest checkpoints.
     */
    public CdcSourceBuilder<T, P, M> checkpointsRetainedBeforeConfirm(int n) {
        this.checkpointsRetained = n;
        return this;
    }

    /**
     * What the job's sink keeps of an attempt that failed ({@link SinkGuarantee}); {@link
     * SinkGuarantee#EXACTLY_ONCE} by default.
     */
    public CdcSourceBuilder<T, P, M> sinkGuarantee(SinkGuarantee guarantee) {
        this.sinkGuarantee = Objects.requireNonNull(guarantee, "guarantee");
        return this;
    }

    /**
     * How often a streaming source looks for new tables the include list matches, to snapshot and
     * then stream them; {@link Duration#ZERO} looks only at start and restore. 10 s by default.
     */
    public CdcSourceBuilder<T, P, M> tableDiscoveryInterval(Duration interval) {
        this.tableDiscoveryInterval = Objects.requireNonNull(interval, "interval");
        return this;
    }

    /**
     * What the source does when a captured table's shape changes ({@link SchemaChangePolicy}); {@link
     * SchemaChangePolicy#EMIT} by default.
     */
    public CdcSourceBuilder<T, P, M> schemaChanges(SchemaChangePolicy policy) {
        this.schemaChanges = Objects.requireNonNull(policy, "policy");
        return this;
    }

    /**
     * Whether a checkpoint may fall inside a source transaction ({@link TransactionBoundaries}); {@link
     * TransactionBoundaries#SPLIT} by default. {@link TransactionBoundaries#PRESERVE} needs a connector
     * that {@linkplain CdcConnector#marksTransactionEnds() marks transaction ends} (PostgreSQL).
     */
    public CdcSourceBuilder<T, P, M> transactionBoundaries(TransactionBoundaries boundaries) {
        this.transactionBoundaries = Objects.requireNonNull(boundaries, "boundaries");
        return this;
    }

    /**
     * Under {@link TransactionBoundaries#PRESERVE}, the most changes of one transaction emitted between
     * two checkpoints (default 100,000); a larger transaction is emitted split, with a warning.
     */
    public CdcSourceBuilder<T, P, M> transactionMaxChanges(int changes) {
        this.transactionMaxChanges = changes;
        return this;
    }

    /**
     * How many entries of each table the schema history keeps ({@code schema-history.retention}, 256 by
     * default, 1 to {@value CdcSourceOptions#SCHEMA_HISTORY_RETENTION_MAX}); older ones are pruned.
     */
    public CdcSourceBuilder<T, P, M> schemaHistoryRetention(int entriesPerTable) {
        this.schemaHistoryRetention = entriesPerTable;
        return this;
    }

    /**
     * The snapshot control directory ({@code scan.control.path}): a Flink path every JobManager can
     * read and write, one per source. The enumerator polls it for {@link
     * io.rustcdc.flink.source.control.SnapshotControl} requests; null (the default): no control.
     */
    public CdcSourceBuilder<T, P, M> controlPath(String path) {
        this.controlPath = path;
        return this;
    }

    /** How often the enumerator polls the control directory ({@code scan.control.interval}, 5 s by default). */
    public CdcSourceBuilder<T, P, M> controlInterval(Duration interval) {
        this.controlInterval = interval;
        return this;
    }

    /** Applies the options of {@link CdcSourceOptions} and {@link ControlOptions} that {@code options} sets. */
    public CdcSourceBuilder<T, P, M> options(ReadableConfig options) {
        options.getOptional(CdcSourceOptions.TABLE_INCLUDE_LIST).ifPresent(include::addAll);
        options.getOptional(CdcSourceOptions.TABLE_EXCLUDE_LIST).ifPresent(exclude::addAll);
        options.getOptional(CdcSourceOptions.STARTUP_MODE).ifPresent(m -> startupMode = StartupMode.parse(m,
                options.getOptional(CdcSourceOptions.STARTUP_POSITION).orElse(null)));
        options.getOptional(CdcSourceOptions.CHUNK_SIZE).ifPresent(n -> chunkSize = n);
        options.getOptional(CdcSourceOptions.CHECKPOINTS_RETAINED).ifPresent(n -> checkpointsRetained = n);
        options.getOptional(CdcSourceOptions.SINK_GUARANTEE).ifPresent(g -> sinkGuarantee = g);
        options.getOptional(CdcSourceOptions.TABLE_DISCOVERY_INTERVAL).ifPresent(d -> tableDiscoveryInterval = d);
        options.getOptional(CdcSourceOptions.SCHEMA_CHANGES).ifPresent(p -> schemaChanges = p);
        options.getOptional(CdcSourceOptions.TRANSACTION_BOUNDARIES).ifPresent(b -> transactionBoundaries = b);
        options.getOptional(CdcSourceOptions.TRANSACTION_MAX_CHANGES).ifPresent(n -> transactionMaxChanges = n);
        options.getOptional(CdcSourceOptions.SCHEMA_HISTORY_RETENTION).ifPresent(n -> schemaHistoryRetention = n);
        options.getOptional(CdcSourceOptions.SNAPSHOT_FILTER).ifPresent(f -> rowFilter = f);
        options.getOptional(ControlOptions.CONTROL_PATH).ifPresent(p -> controlPath = p);
        options.getOptional(ControlOptions.CONTROL_INTERVAL).ifPresent(d -> controlInterval = d);
        options.getOptional(CdcSourceOptions.CHUNK_KEY_COLUMNS).ifPresent(entries -> {
            for (String entry : entries) {
                int colon = entry.lastIndexOf(':');
                if (colon <= 0 || colon == entry.length() - 1) {
                    throw new CdcException(CdcException.Kind.CONFIGURATION, "Option '"
                            + CdcSourceOptions.CHUNK_KEY_COLUMNS.key() + "' takes schema.table:column entries, not '"
                            + entry + "'");
                }
                chunkKeyColumns.put(entry.substring(0, colon), entry.substring(colon + 1));
            }
        });
        return this;
    }

    /** @throws CdcException of kind CONFIGURATION naming what to fix */
    public CdcSource<T, P, M> build() {
        if (chunkSize < 2) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "The chunk size ('"
                    + CdcSourceOptions.CHUNK_SIZE.key() + "') must be at least 2 rows, not " + chunkSize);
        }
        if (checkpointsRetained < 1) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "'" + CdcSourceOptions.CHECKPOINTS_RETAINED.key()
                    + "' must be at least 1, not " + checkpointsRetained);
        }
        if (tableDiscoveryInterval.isNegative()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "'" + CdcSourceOptions.TABLE_DISCOVERY_INTERVAL.key()
                    + "' must not be negative, not " + tableDiscoveryInterval);
        }
        if (transactionMaxChanges < 1) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "'" + CdcSourceOptions.TRANSACTION_MAX_CHANGES.key()
                    + "' must be at least 1, not " + transactionMaxChanges);
        }
        if (schemaHistoryRetention < 1 || schemaHistoryRetention > CdcSourceOptions.SCHEMA_HISTORY_RETENTION_MAX) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "'"
                    + CdcSourceOptions.SCHEMA_HISTORY_RETENTION.key() + "' must be from 1 to "
                    + CdcSourceOptions.SCHEMA_HISTORY_RETENTION_MAX + " entries per table, not " + schemaHistoryRetention
                    + " (every entry is kept in the stream split's state)");
        }
        if (transactionBoundaries == TransactionBoundaries.PRESERVE && !connector.marksTransactionEnds()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "'" + CdcSourceOptions.TRANSACTION_BOUNDARIES.key()
                    + "' = '" + TransactionBoundaries.PRESERVE + "' is not supported by the " + connector.name()
                    + " connector, whose stream does not mark where a transaction ends; use '"
                    + TransactionBoundaries.SPLIT + "'");
        }
        for (String table : chunkKeyColumns.keySet()) {
            if (!table.contains(".")) {
                throw new CdcException(CdcException.Kind.CONFIGURATION, "A chunk key column needs its table as "
                        + "schema.table (for MySQL database.table), not '" + table + "'");
            }
        }
        rowFilters.forEach((table, condition) -> {
            if (!table.contains(".")) {
                throw new CdcException(CdcException.Kind.CONFIGURATION, "A row filter needs its table as "
                        + "schema.table (for MySQL database.table), not '" + table + "'");
            }
            if (condition.isBlank()) {
                throw new CdcException(CdcException.Kind.CONFIGURATION, "The row filter of " + table
                        + " is blank; give a SQL condition, or set none");
            }
        });
        if (rowFilter != null && rowFilter.isBlank()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "'" + CdcSourceOptions.SNAPSHOT_FILTER.key()
                    + "' is blank; give a SQL condition, or leave the option out");
        }
        SourceSettings settings = new SourceSettings(TableFilter.of(include, exclude), startupMode, chunkSize,
                chunkKeyColumns, fullBeforeImages, checkpointsRetained, sinkGuarantee,
                tableDiscoveryInterval, schemaChanges, transactionBoundaries, transactionMaxChanges,
                schemaHistoryRetention, rowFilters, rowFilter);
        ControlSettings control = controlPath == null ? null
                : new ControlSettings(ControlDirectory.of(controlPath), controlInterval);
        return new CdcSource<>(connector, settings, deserializer, control);
    }
}
