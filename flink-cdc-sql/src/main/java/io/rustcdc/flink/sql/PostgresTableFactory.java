package io.rustcdc.flink.sql;

import io.rustcdc.flink.postgres.PostgresChunkMark;
import io.rustcdc.flink.postgres.PostgresConnector;
import io.rustcdc.flink.postgres.PostgresOptions;
import io.rustcdc.flink.postgres.PostgresPosition;
import io.rustcdc.flink.postgres.PostgresSourceConfig;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import java.util.ArrayList;
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
 * {@code 'connector' = 'rustcdc-postgres'}: one PostgreSQL table as a Flink SQL table. Every option is
 * checked when the job is planned, and so is the declared schema, against the table's shape read from
 * the catalogue.
 */
@Internal
public final class PostgresTableFactory implements DynamicTableSourceFactory {
    public static final String IDENTIFIER = "rustcdc-postgres";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(PostgresOptions.HOSTNAME, PostgresOptions.USERNAME, PostgresOptions.DATABASE_NAME,
                SqlOptions.TABLE_NAME);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(PostgresOptions.PORT, PostgresOptions.PASSWORD, PostgresOptions.PASSWORD_ENV,
                PostgresOptions.PASSWORD_FILE, PostgresOptions.SLOT_NAME, PostgresOptions.SLOT_CREATE_IF_MISSING,
                PostgresOptions.SLOT_FAILOVER, PostgresOptions.PUBLICATION_NAME,
                PostgresOptions.PUBLICATION_CREATE_IF_MISSING, PostgresOptions.TLS_MODE, PostgresOptions.TLS_ROOT_CERT,
                PostgresOptions.CONNECT_TIMEOUT, PostgresOptions.STATUS_INTERVAL, SqlOptions.SCHEMA_NAME,
                SqlOptions.CHANGELOG_MODE, CdcSourceOptions.STARTUP_MODE, CdcSourceOptions.CHUNK_SIZE,
                CdcSourceOptions.CHUNK_KEY_COLUMNS, CdcSourceOptions.CHECKPOINTS_RETAINED);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ReadableConfig options = helper.getOptions();
        PostgresSourceConfig config = PostgresSourceConfig.fromConfiguration(options);
        String changelog = options.get(SqlOptions.CHANGELOG_MODE);
        if (!changelog.equals("all") && !changelog.equals("upsert")) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Option 'changelog-mode' is 'all' or 'upsert', not '"
                    + changelog + "'");
        }
        boolean upsert = changelog.equals("upsert");
        StartupMode.parse(options.get(CdcSourceOptions.STARTUP_MODE));
        TableId table = tableId(config, options);

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
        DeclaredColumns columns = new DeclaredColumns(names, types, key);
        PostgresConnector connector = PostgresConnector.create(config);
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            TableDescription description = session.describe(table);
            columns.check(table, description.shape(), description.rowType(), "when the job is planned");
        }
        return new CdcTableSource<>(fullBeforeImages -> CdcSource.builder(connector)
                .options(options)
                .includeTables(table.qualifiedName())
                .requireFullBeforeImages(fullBeforeImages),
                table, columns, schema.toPhysicalRowDataType(), upsert);
    }

    private static TableId tableId(PostgresSourceConfig config, ReadableConfig options) {
        String name = options.get(SqlOptions.TABLE_NAME);
        int dot = name.indexOf('.');
        return dot < 0
                ? TableId.of(config.database(), options.get(SqlOptions.SCHEMA_NAME), name)
                : TableId.of(config.database(), name.substring(0, dot), name.substring(dot + 1));
    }
}
