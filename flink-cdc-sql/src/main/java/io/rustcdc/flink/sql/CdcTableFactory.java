package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.control.ControlOptions;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.TableDescription;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every rustcdc SQL connector does with a {@code CREATE TABLE}: checks every option and the
 * declared schema (against the shape of each source table it names, read from the catalogue) when
 * the job is planned, and builds the same {@link CdcSource} as the DataStream API. A connector
 * supplies its configured connector, the source tables ({@link SourceTables}: one table, or a
 * pattern such as {@code public.orders_*} whose tables become one SQL table) and its {@link
 * ConnectorTypes}.
 */
@Internal
abstract class CdcTableFactory<P extends SourcePosition & Comparable<P>, M extends Serializable>
        implements DynamicTableSourceFactory {
    private static final Logger LOG = LoggerFactory.getLogger(CdcTableFactory.class);

    /**
     * The options every rustcdc SQL table takes besides its connector's own: the changelog mode and
     * the source's (a SQL table names its source tables in {@code table-name}, so none of the {@code
     * table.*} lists).
     */
    static final List<ConfigOption<?>> SOURCE_OPTIONS = List.of(SqlOptions.CHANGELOG_MODE,
            SqlOptions.UPSERT_KEY_UNIQUE_ACROSS_TABLES,
            CdcSourceOptions.STARTUP_MODE, CdcSourceOptions.STARTUP_POSITION, CdcSourceOptions.CHUNK_SIZE,
            CdcSourceOptions.CHUNK_KEY_COLUMNS, CdcSourceOptions.SNAPSHOT_FILTER, CdcSourceOptions.CHECKPOINTS_RETAINED,
            CdcSourceOptions.SINK_GUARANTEE,
            CdcSourceOptions.TABLE_DISCOVERY_INTERVAL, CdcSourceOptions.SCHEMA_CHANGES,
            CdcSourceOptions.TRANSACTION_BOUNDARIES, CdcSourceOptions.TRANSACTION_MAX_CHANGES,
            CdcSourceOptions.SCHEMA_HISTORY_RETENTION,
            ControlOptions.CONTROL_PATH, ControlOptions.CONTROL_INTERVAL);

    /** A factory's optional options: its connector's {@code own} and {@link #SOURCE_OPTIONS}. */
    static Set<ConfigOption<?>> withSourceOptions(Set<ConfigOption<?>> flinkCdcNames, ConfigOption<?>... own) {
        Set<ConfigOption<?>> options = new HashSet<>(List.of(own));
        options.addAll(SOURCE_OPTIONS);
        options.addAll(flinkCdcNames); // Flink CDC's names where they mean ours (FlinkCdcNames)
        return options;
    }

    /** The connector the options configure. */
    abstract CdcConnector<P, M> connector(ReadableConfig options);

    /**
     * The connector the job reads with: the options' connector, told that every update of each of
     * {@code tables} must carry {@code columns} in its new row because {@code neededBy} needs them (for
     * its messages), where the database may leave some out and can check at the stream's start
     * whether it will. This one ignores them: its database sends whole new rows.
     */
    CdcConnector<P, M> connector(ReadableConfig options, List<TableId> tables, List<String> columns, String neededBy) {
        return connector(options);
    }

    /**
     * Whether the options make the connector read values an update did not send from the table, so
     * that an update still lacking one had its row gone by then; false for a database that sends
     * whole new rows.
     */
    boolean rereadsUnsent(ReadableConfig options) {
        return false;
    }

    /** The source tables the options name: one table, or a pattern ({@link SourceTables}). */
    abstract SourceTables tables(ReadableConfig options);

    /** The connector's types in Flink SQL, and the words its messages need. */
    abstract ConnectorTypes connectorTypes();

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ReadableConfig options = FlinkCdcNames.apply(helper.getOptions(), factoryIdentifier());
        CdcConnector<P, M> connector = connector(options);
        String changelog = options.get(SqlOptions.CHANGELOG_MODE);
        if (!changelog.equals("all") && !changelog.equals("upsert")) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Option 'changelog-mode' is 'all' or 'upsert', not '"
                    + changelog + "'");
        }
        boolean upsert = changelog.equals("upsert");
        StartupMode mode = StartupMode.parse(options.get(CdcSourceOptions.STARTUP_MODE),
                options.getOptional(CdcSourceOptions.STARTUP_POSITION).orElse(null));
        if (mode.kind() == StartupMode.Kind.POSITION) {
            connector.parsePosition(mode.position()); // a bad position fails when the job is planned
        }
        SourceTables sources = tables(options);

        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        List<String> names = new ArrayList<>();
        List<LogicalType> types = new ArrayList<>();
        for (Column c : schema.getColumns()) {
            if (c.isPhysical()) {
                names.add(c.getName());
                types.add(c.getDataType().getLogicalType());
            }
        }
        List<String> key = schema.getPrimaryKey().map(k -> k.getColumns()).orElse(List.of());
        String flinkTable = context.getObjectIdentifier().asSummaryString();
        if (upsert && key.isEmpty()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "'changelog-mode' = 'upsert' needs a PRIMARY KEY "
                    + "(...) NOT ENFORCED in the table declared for " + sources);
        }
        String filter = options.getOptional(CdcSourceOptions.SNAPSHOT_FILTER).orElse("");
        if (!upsert && !filter.isBlank()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "The Flink table " + flinkTable + " has '"
                    + CdcSourceOptions.SNAPSHOT_FILTER.key() + "' with 'changelog-mode' = 'all': the stream emits every "
                    + "change, also -U and -D rows of rows the filtered snapshot left out, which a consumer of all "
                    + "changes (an aggregate, say) would take away although it never added them. Use 'changelog-mode' = "
                    + "'upsert' with a PRIMARY KEY (Flink then keeps each key's last row, and drops deletes of keys it "
                    + "never held)" + (sources.isPattern() ? ", which for a table reading '" + sources + "' also needs '"
                    + SqlOptions.UPSERT_KEY_UNIQUE_ACROSS_TABLES.key() + "' = 'true' (no key value in two of its tables; "
                    + "else read the tables with a filter through the DataStream API)" : "") + ", or leave the filter out.");
        }
        if (upsert && sources.isPattern() && !options.get(SqlOptions.UPSERT_KEY_UNIQUE_ACROSS_TABLES)) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "The Flink table " + flinkTable + " reads every "
                    + "table matching '" + sources + "' with 'changelog-mode' = 'upsert', keyed by its PRIMARY KEY "
                    + key + " alone (Flink allows no metadata column such as table_name in a PRIMARY KEY), so rows of "
                    + "two tables with one key would overwrite each other downstream. Use 'changelog-mode' = 'all' (and a "
                    + "sink key that includes the table_name metadata column), or, when no key value occurs in two of "
                    + "the tables, set '" + SqlOptions.UPSERT_KEY_UNIQUE_ACROSS_TABLES.key() + "' = 'true'.");
        }
        DeclaredColumns columns = new DeclaredColumns(names, types, key, connectorTypes());
        List<TableId> matched = plannedTables(connector, sources, columns);
        ReadableConfig settings = FlinkCdcNames.qualifyChunkKeyColumns(options, sources.isPattern() ? null
                : matched.get(0), sources);
        SourceTables reads = sources.isPattern() ? sources : SourceTables.exactly(matched.get(0));
        // upsert's +U rows hold every declared column, and the old row does not supply them ('all' needs whole old
        // rows, which the source checks at its start)
        CdcConnector<P, M> reading = upsert ? connector(options, matched, names, "the Flink table " + flinkTable
                + " (changelog-mode 'upsert': each +U row holds every column the table declares)") : connector;
        return new CdcTableSource<>(fullBeforeImages -> CdcSource.builder(reading)
                .options(settings)
                .includeTables(reads.includePattern())
                .requireFullBeforeImages(fullBeforeImages),
                reads, flinkTable, columns, schema.toPhysicalRowDataType(), upsert, rereadsUnsent(options));
    }

    /**
     * The tables {@code sources} names now, each checked against the declared {@code columns}: the one
     * table of a name, or every table a pattern matches (at least one), all problems in one message.
     */
    private List<TableId> plannedTables(CdcConnector<P, M> connector, SourceTables sources, DeclaredColumns columns) {
        String when = "when the job is planned";
        try (CatalogSession<P, M> session = connector.openSession()) {
            List<TableId> captured = session.discoverTables(TableFilter.of(List.of(sources.includePattern()), List.of()));
            if (!sources.isPattern()) {
                TableId table = sources.literal();
                TableDescription description = session.describe(table);
                columns.check(table, description.shape(), description.rowType(), when);
                return List.of(spelled(table, captured));
            }
            List<TableId> matched = new ArrayList<>();
            for (TableId t : captured) {
                if (sources.matches(t)) {
                    matched.add(t);
                }
            }
            if (matched.isEmpty()) {
                throw new CdcException(CdcException.Kind.CONFIGURATION, "No source table matches '" + sources
                        + "' when the job is planned" + sources.regexHint() + ". Create a matching table, or fix "
                        + "'table-name' (a part without a wildcard is a name, matched exactly, case included; a "
                        + "PostgreSQL source sees only the tables of its publication when that exists).");
            }
            List<String> problems = new ArrayList<>();
            for (TableId t : matched) {
                TableDescription description = session.describe(t);
                columns.problems(t, description.shape(), description.rowType())
                        .forEach(p -> problems.add("table " + t.qualifiedName() + ": " + p));
            }
            if (!problems.isEmpty()) {
                throw new CdcException(CdcException.Kind.CONFIGURATION, "The table declared for '" + sources
                        + "' does not fit every source table it matches " + when + " (" + matched.stream()
                                .map(TableId::qualifiedName).collect(Collectors.joining(", ")) + "):\n  - "
                        + String.join("\n  - ", problems));
            }
            LOG.info("The table declared for '{}' reads {} when the job is planned, and tables created later that match",
                    sources, matched);
            return matched;
        }
    }

    /**
     * {@code table} as the database spells it: itself when the catalogue lists it, or the one listed
     * table whose name differs only in case where the database resolved the name without regard to
     * case (SQL Server's usual collations, MySQL with {@code lower_case_table_names}), so that its rows,
     * which carry that spelling, are this table's.
     */
    static TableId spelled(TableId table, List<TableId> captured) {
        if (captured.contains(table)) {
            return table;
        }
        List<TableId> folded = new ArrayList<>();
        for (TableId t : captured) {
            if (t.database().equalsIgnoreCase(table.database()) && t.schema() != null
                    && t.schema().equalsIgnoreCase(table.schema()) && t.table().equalsIgnoreCase(table.table())) {
                folded.add(t);
            }
        }
        return folded.size() == 1 ? folded.get(0) : table;
    }
}
