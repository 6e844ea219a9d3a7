package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.control.ControlOptions;
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
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * What every rustcdc SQL connector does with a {@code CREATE TABLE}: checks every option and the
 * declared schema (against the table's shape read from the catalogue) when the job is planned, and
 * builds the same {@link CdcSource} as the DataStream API. A connector supplies its configured
 * connector, the source table and its {@link ConnectorTypes}.
 */
@Internal
abstract class CdcTableFactory<P extends SourcePosition & Comparable<P>, M extends Serializable>
        implements DynamicTableSourceFactory {

    /**
     * The options every rustcdc SQL table takes besides its connector's own: the changelog mode and
     * the source's (one SQL table is one source table, so none of the {@code table.*} lists).
     */
    static final List<ConfigOption<?>> SOURCE_OPTIONS = List.of(SqlOptions.CHANGELOG_MODE,
            CdcSourceOptions.STARTUP_MODE, CdcSourceOptions.STARTUP_POSITION, CdcSourceOptions.CHUNK_SIZE,
            CdcSourceOptions.CHUNK_KEY_COLUMNS, CdcSourceOptions.CHECKPOINTS_RETAINED, CdcSourceOptions.SINK_GUARANTEE,
            CdcSourceOptions.TABLE_DISCOVERY_INTERVAL, CdcSourceOptions.SCHEMA_CHANGES,
            CdcSourceOptions.TRANSACTION_BOUNDARIES, CdcSourceOptions.TRANSACTION_MAX_CHANGES,
            ControlOptions.CONTROL_PATH, ControlOptions.CONTROL_INTERVAL);

    /** A factory's optional options: its connector's {@code own} and {@link #SOURCE_OPTIONS}. */
    static Set<ConfigOption<?>> withSourceOptions(ConfigOption<?>... own) {
        Set<ConfigOption<?>> options = new HashSet<>(List.of(own));
        options.addAll(SOURCE_OPTIONS);
        return options;
    }

    /** The connector the options configure. */
    abstract CdcConnector<P, M> connector(ReadableConfig options);

    /**
     * The connector the job reads with: the options' connector, told that every update of {@code
     * table} must carry {@code columns} in its new row because {@code neededBy} needs them (for its
     * messages), where the database may leave some out and can check at the stream's start whether it
     * will. This one ignores them: its database sends whole new rows.
     */
    CdcConnector<P, M> connector(ReadableConfig options, TableId table, List<String> columns, String neededBy) {
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

    /** The source table the options name. */
    abstract TableId table(ReadableConfig options);

    /** The connector's types in Flink SQL, and the words its messages need. */
    abstract ConnectorTypes connectorTypes();

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ReadableConfig options = helper.getOptions();
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
        TableId table = table(options);

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
        if (upsert && key.isEmpty()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "'changelog-mode' = 'upsert' needs a PRIMARY KEY "
                    + "(...) NOT ENFORCED in the table declared for " + table.qualifiedName());
        }
        DeclaredColumns columns = new DeclaredColumns(names, types, key, connectorTypes());
        try (CatalogSession<P, M> session = connector.openSession()) {
            TableDescription description = session.describe(table);
            columns.check(table, description.shape(), description.rowType(), "when the job is planned");
        }
        String flinkTable = context.getObjectIdentifier().asSummaryString();
        // upsert's +U rows hold every declared column, and the old row does not supply them ('all' needs whole old
        // rows, which the source checks at its start)
        CdcConnector<P, M> reading = upsert ? connector(options, table, names, "the Flink table " + flinkTable
                + " (changelog-mode 'upsert': each +U row holds every column the table declares)") : connector;
        return new CdcTableSource<>(fullBeforeImages -> CdcSource.builder(reading)
                .options(options)
                .includeTables(table.qualifiedName())
                .requireFullBeforeImages(fullBeforeImages),
                table, flinkTable, columns, schema.toPhysicalRowDataType(), upsert, rereadsUnsent(options));
    }
}
