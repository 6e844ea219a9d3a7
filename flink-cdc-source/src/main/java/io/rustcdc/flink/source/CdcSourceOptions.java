package io.rustcdc.flink.source;

import java.time.Duration;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** The options every connector's source shares, named as in Apache Flink CDC where it has them. */
@PublicEvolving
public final class CdcSourceOptions {
    private CdcSourceOptions() {}

    public static final ConfigOption<List<String>> TABLE_INCLUDE_LIST = ConfigOptions.key("table.include-list")
            .stringType()
            .asList()
            .defaultValues()
            .withDescription("Glob patterns of schema.table to capture; non-empty means only these, and the exclude "
                    + "list is ignored. A pattern without a schema matches that table name in every schema.");

    public static final ConfigOption<List<String>> TABLE_EXCLUDE_LIST = ConfigOptions.key("table.exclude-list")
            .stringType()
            .asList()
            .defaultValues()
            .withDescription("Glob patterns of schema.table not to capture, when the include list is empty.");

    public static final ConfigOption<String> STARTUP_MODE = ConfigOptions.key("scan.startup.mode")
            .stringType()
            .defaultValue("initial")
            .withDescription("initial (snapshot, then stream), snapshot (bounded), latest-offset (stream from now), "
                    + "committed-offset (stream from the position the database holds for this source), "
                    + "specific-offset (stream from 'scan.startup.specific-offset').");

    public static final ConfigOption<String> STARTUP_POSITION = ConfigOptions.key("scan.startup.specific-offset")
            .stringType()
            .noDefaultValue()
            .withDescription("The position 'specific-offset' streams from, in the connector's notation "
                    + "(MySQL/MariaDB: binlog-file:offset). Not every connector supports it.");

    public static final ConfigOption<Integer> CHUNK_SIZE = ConfigOptions.key("scan.incremental.snapshot.chunk.size")
            .intType()
            .defaultValue(50_000)
            .withDescription("Rows per snapshot chunk. A chunk is the unit of parallel reading; its rows stream out as "
                    + "its snapshot reads them, and a checkpoint waits for the chunk's end, so that it never splits one.");

    public static final ConfigOption<List<String>> CHUNK_KEY_COLUMNS =
            ConfigOptions.key("scan.incremental.snapshot.chunk.key-column")
                    .stringType()
                    .asList()
                    .defaultValues()
                    .withDescription("schema.table:column entries naming the column that splits a table, instead of "
                            + "its primary key; required for a table without one, whose column's values must be unique and not "
                            + "null. In a table with a primary key it must be a column of that key, when the source streams.");

    public static final ConfigOption<String> SNAPSHOT_FILTER = ConfigOptions.key("scan.snapshot.filter")
            .stringType()
            .noDefaultValue()
            .withDescription("A SQL condition, in the database's dialect, that the snapshot rows of every captured "
                    + "table must satisfy (added to each chunk's query as AND (<condition>)); the stream still "
                    + "emits every change. Raw SQL: trusted configuration, never built from user data. Checked "
                    + "against each table at start.");

    public static final ConfigOption<Duration> TABLE_DISCOVERY_INTERVAL = ConfigOptions.key("scan.table-discovery.interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("How often a streaming source looks for tables the include list matches that were "
                    + "created (or, for PostgreSQL, added to the publication) since it started; each one found is "
                    + "snapshotted while the stream runs, then streamed. 0 looks only when the job starts or is "
                    + "restored; changes of such a table are left out until then (with a warning).");

    public static final ConfigOption<SinkGuarantee> SINK_GUARANTEE = ConfigOptions.key("scan.handoff.sink-guarantee")
            .enumType(SinkGuarantee.class)
            .defaultValue(SinkGuarantee.EXACTLY_ONCE)
            .withDescription("What the job's sink keeps of an attempt that failed. 'exactly-once' (sinks that commit "
                    + "with checkpoints): the changelog is exact. 'at-least-once' (upsert sinks that write at once): "
                    + "after a restore during the snapshot, every change to the keys of a chunk read again is "
                    + "delivered, so an upsert by key ends at the table's content; downstream may see duplicates, "
                    + "an older value for a moment and deletes of rows it never saw.");

    public static final ConfigOption<Integer> CHECKPOINTS_RETAINED = ConfigOptions.key("checkpoints.retained-before-confirm")
            .intType()
            .defaultValue(1)
            .withDescription("Confirm to the database only the position of the n-th newest completed checkpoint. With "
                    + "n > 1 the job can be restored from any of its n newest checkpoints; the database retains the "
                    + "log (PostgreSQL: WAL) of those n checkpoints.");

    public static final ConfigOption<SchemaChangePolicy> SCHEMA_CHANGES = ConfigOptions.key("schema-changes")
            .enumType(SchemaChangePolicy.class)
            .defaultValue(SchemaChangePolicy.EMIT)
            .withDescription("What the source does when a captured table's shape changes, by the change's class "
                    + "(column_added, column_removed, column_renamed, column_type_changed, column_nullability_changed, "
                    + "primary_key_changed, table_created, table_dropped, table_replaced, unknown; a statement that "
                    + "changed no shape is unchanged, which every value accepts). 'emit': emit the classified schema "
                    + "change event and go on. 'fail-on-unknown': fail on a change the source cannot tell apart (a "
                    + "rename or a drop and an add). 'additive-only': fail on anything but a created table or an added "
                    + "nullable column. 'fail': fail on any change of a shape. A refused change fails the job "
                    + "naming the table, the class and the columns with their types before and after.");

    /** The most entries of one table the schema history keeps; every entry is in the stream split's state. */
    public static final int SCHEMA_HISTORY_RETENTION_MAX = 100_000;

    public static final ConfigOption<Integer> SCHEMA_HISTORY_RETENTION = ConfigOptions.key("schema-history.retention")
            .intType()
            .defaultValue(io.rustcdc.flink.source.history.SchemaHistory.DEFAULT_RETENTION)
            .withDescription("How many entries of each table the schema history in the stream split's state keeps "
                    + "(1 to " + SCHEMA_HISTORY_RETENTION_MAX + "): its newest shapes, each with its version. Older "
                    + "ones are pruned, and lookups of a version or time before the oldest kept answer nothing. "
                    + "A restore applies the configured value to the restored history.");

    public static final ConfigOption<TransactionBoundaries> TRANSACTION_BOUNDARIES =
            ConfigOptions.key("scan.transaction-boundaries")
                    .enumType(TransactionBoundaries.class)
                    .defaultValue(TransactionBoundaries.SPLIT)
                    .withDescription("'split': a checkpoint may fall inside a source transaction. 'preserve': a "
                            + "checkpoint never falls inside one, so a sink that commits with checkpoints commits "
                            + "whole source transactions; a transaction of more than "
                            + "'scan.transaction-boundaries.max-changes' changes is emitted split, with a warning. "
                            + "A connector that cannot tell transaction ends fails at start.");

    public static final ConfigOption<Integer> TRANSACTION_MAX_CHANGES =
            ConfigOptions.key("scan.transaction-boundaries.max-changes")
                    .intType()
                    .defaultValue(100_000)
                    .withDescription("Under 'scan.transaction-boundaries' = 'preserve', the most changes of one "
                            + "transaction emitted between two checkpoints: a larger transaction is emitted split "
                            + "after every this many of its changes (a checkpoint waits for them), with a warning "
                            + "naming the transaction.");
}
