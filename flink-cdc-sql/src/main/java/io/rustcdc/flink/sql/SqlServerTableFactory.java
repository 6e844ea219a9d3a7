package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.sqlserver.SqlServerChunkMark;
import io.rustcdc.flink.sqlserver.SqlServerConnector;
import io.rustcdc.flink.sqlserver.SqlServerOptions;
import io.rustcdc.flink.sqlserver.SqlServerPosition;
import io.rustcdc.flink.sqlserver.SqlServerSourceConfig;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.connector.source.DynamicTableSource;

/**
 * {@code 'connector' = 'rustcdc-sqlserver'}: one SQL Server table, or the tables a pattern matches
 * ({@link SourceTables}), as a Flink SQL table ({@code 'database-name'}, and {@code 'table-name'} as
 * {@code schema.table} or in {@code 'schema-name'}, {@code dbo} when neither names a schema), read
 * from its CDC change tables.
 *
 * <p>{@code op_ts} is refused by name unless {@code 'server-time-zone'} is set: without the server's
 * offset, SQL Server's commit times (local times in {@code cdc.lsn_time_mapping}) are not read, and
 * every row would show the epoch. {@code transaction_id} is the commit LSN of the change's transaction.
 */
@Internal
public class SqlServerTableFactory extends CdcTableFactory<SqlServerPosition, SqlServerChunkMark> {
    public static final String IDENTIFIER = "rustcdc-sqlserver";

    /** SQL Server's default schema, for a {@code 'table-name'} without one when {@code 'schema-name'} is not set. */
    static final String DEFAULT_SCHEMA = "dbo";


    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(SqlServerOptions.HOSTNAME, SqlServerOptions.USERNAME, SqlServerOptions.DATABASE_NAME,
                SqlOptions.TABLE_NAME);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return withSourceOptions(FlinkCdcNames.COMMON,
                SqlServerOptions.PORT, SqlServerOptions.PASSWORD, SqlServerOptions.PASSWORD_ENV,
                SqlServerOptions.PASSWORD_FILE, SqlServerOptions.TLS_MODE, SqlServerOptions.TLS_ROOT_CERT,
                SqlServerOptions.CONNECT_TIMEOUT, SqlServerOptions.READ_TIMEOUT, SqlServerOptions.CONNECT_MAX_RETRIES,
                SqlServerOptions.CONNECT_RETRY_INITIAL_DELAY, SqlServerOptions.CONNECT_RETRY_MAX_DELAY,
                SqlServerOptions.CDC_SCHEMA, SqlServerOptions.POLL_INTERVAL, SqlServerOptions.MAX_EVENTS_PER_POLL,
                SqlServerOptions.CAPTURE_TRUNCATE_EVENTS, SqlServerOptions.SERVER_TIME_ZONE,
                SqlServerOptions.METRICS_INTERVAL, SqlOptions.SCHEMA_NAME);
    }

    /** Refuses {@code op_ts} without the server's offset before anything else (no connection). */
    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        String zone = context.getCatalogTable().getOptions().get(SqlServerOptions.SERVER_TIME_ZONE.key());
        for (Column c : context.getCatalogTable().getResolvedSchema().getColumns()) {
            if (c instanceof Column.MetadataColumn) {
                String key = ((Column.MetadataColumn) c).getMetadataKey().orElse(c.getName());
                if (key.equals(MetadataColumn.OP_TS.key()) && (zone == null || zone.isBlank())) {
                    throw new CdcException(CdcException.Kind.CONFIGURATION, "Column " + c.getName() + " of "
                            + context.getObjectIdentifier().asSummaryString() + " reads metadata '" + key
                            + "', which '" + IDENTIFIER + "' supplies only with '" + SqlServerOptions.SERVER_TIME_ZONE.key()
                            + "': SQL Server records commit times in its local time without an offset "
                            + "(cdc.lsn_time_mapping), and without it every row would show 1970-01-01 00:00:00Z. Set '"
                            + SqlServerOptions.SERVER_TIME_ZONE.key() + "' to the fixed offset the server's clock runs "
                            + "at ('UTC'), or remove the column.");
                }
            }
        }
        return super.createDynamicTableSource(context);
    }

    @Override
    CdcConnector<SqlServerPosition, SqlServerChunkMark> connector(ReadableConfig options) {
        return SqlServerConnector.create(SqlServerSourceConfig.fromConfiguration(options));
    }

    @Override
    SourceTables tables(ReadableConfig options) {
        // SqlOptions.SCHEMA_NAME defaults to PostgreSQL's 'public': only a schema given explicitly counts here
        return SourceTables.qualified(options.get(SqlServerOptions.DATABASE_NAME), options.get(SqlOptions.TABLE_NAME),
                options.getOptional(SqlOptions.SCHEMA_NAME).orElse(DEFAULT_SCHEMA));
    }

    @Override
    ConnectorTypes connectorTypes() {
        return new SqlServerTypes();
    }
}
