package io.rustcdc.flink.sql;

import io.rustcdc.flink.postgres.PostgresOptions;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

/**
 * {@code CREATE CATALOG pg WITH ('type' = 'rustcdc-postgres', ...)}: the tables of one PostgreSQL database
 * ({@code 'database-name'}, the catalog's only Flink database) as {@code pg.shop.`public.orders`}, each read by
 * {@code 'connector' = 'rustcdc-postgres'} with the catalog's options.
 */
@Internal
public final class PostgresCatalogFactory extends CdcCatalogFactory {

    @Override
    CdcTableFactory<?, ?> tableFactory() {
        return new PostgresTableFactory();
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(PostgresOptions.HOSTNAME, PostgresOptions.USERNAME, PostgresOptions.DATABASE_NAME);
    }

    @Override
    Set<ConfigOption<?>> namingOptions() {
        return Set.of(SqlOptions.TABLE_NAME, SqlOptions.SCHEMA_NAME);
    }

    @Override
    CatalogNaming naming(ReadableConfig options) {
        return CatalogNaming.schemaQualified(options.get(PostgresOptions.DATABASE_NAME));
    }

    @Override
    String defaultDatabase(ReadableConfig options) {
        return options.get(PostgresOptions.DATABASE_NAME);
    }
}
