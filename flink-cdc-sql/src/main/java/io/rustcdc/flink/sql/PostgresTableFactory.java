package io.rustcdc.flink.sql;

import io.rustcdc.flink.postgres.PostgresChunkMark;
import io.rustcdc.flink.postgres.PostgresConnector;
import io.rustcdc.flink.postgres.PostgresOptions;
import io.rustcdc.flink.postgres.PostgresPosition;
import io.rustcdc.flink.postgres.PostgresSourceConfig;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CdcConnector;
import java.util.List;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

/**
 * {@code 'connector' = 'rustcdc-postgres'}: one PostgreSQL table, or the tables a pattern matches,
 * as a Flink SQL table ({@code 'table-name'}, as {@code schema.table} or in {@code 'schema-name'};
 * see {@link SourceTables}).
 */
@Internal
public final class PostgresTableFactory extends CdcTableFactory<PostgresPosition, PostgresChunkMark> {
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
        return withSourceOptions(FlinkCdcNames.POSTGRES,
                PostgresOptions.PORT, PostgresOptions.PASSWORD, PostgresOptions.PASSWORD_ENV,
                PostgresOptions.PASSWORD_FILE, PostgresOptions.SLOT_NAME, PostgresOptions.SLOT_CREATE_IF_MISSING,
                PostgresOptions.SLOT_FAILOVER, PostgresOptions.PUBLICATION_NAME,
                PostgresOptions.PUBLICATION_CREATE_IF_MISSING, PostgresOptions.TLS_MODE, PostgresOptions.TLS_ROOT_CERT,
                PostgresOptions.CONNECT_TIMEOUT, PostgresOptions.READ_TIMEOUT, PostgresOptions.CONNECT_MAX_RETRIES,
                PostgresOptions.CONNECT_RETRY_INITIAL_DELAY, PostgresOptions.CONNECT_RETRY_MAX_DELAY,
                PostgresOptions.STATUS_INTERVAL, PostgresOptions.SLOT_CHECK_INTERVAL, PostgresOptions.TOAST_RESELECT,
                PostgresOptions.WAL_TRANSPORT, SqlOptions.SCHEMA_NAME);
    }

    @Override
    CdcConnector<PostgresPosition, PostgresChunkMark> connector(ReadableConfig options) {
        return PostgresConnector.create(PostgresSourceConfig.fromConfiguration(options));
    }

    /** PostgreSQL leaves unchanged TOASTed values out of updates: the stream's start checks whether it will. */
    @Override
    CdcConnector<PostgresPosition, PostgresChunkMark> connector(ReadableConfig options, List<TableId> tables,
            List<String> columns, String neededBy) {
        PostgresSourceConfig.Builder config = PostgresSourceConfig.builder(options);
        tables.forEach(t -> config.requireInUpdates(t, columns, neededBy));
        return PostgresConnector.create(config.build());
    }

    @Override
    boolean rereadsUnsent(ReadableConfig options) {
        return options.get(PostgresOptions.TOAST_RESELECT);
    }

    @Override
    SourceTables tables(ReadableConfig options) {
        return SourceTables.qualified(options.get(PostgresOptions.DATABASE_NAME), options.get(SqlOptions.TABLE_NAME),
                options.get(SqlOptions.SCHEMA_NAME));
    }

    @Override
    ConnectorTypes connectorTypes() {
        return new PostgresTypes();
    }
}
