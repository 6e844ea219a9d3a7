package io.rustcdc.flink.sql;

import io.rustcdc.flink.sqlserver.SqlServerOptions;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

/**
 * {@code CREATE CATALOG ms WITH ('type' = 'rustcdc-sqlserver', ...)}: the tables of one SQL Server database
 * ({@code 'database-name'}, the catalog's only Flink database) as {@code ms.shop.`dbo.orders`}, each read by
 * {@code 'connector' = 'rustcdc-sqlserver'} with the catalog's options.
 */
@Internal
public final class SqlServerCatalogFactory extends CdcCatalogFactory {

    @Override
    CdcTableFactory<?, ?> tableFactory() {
        return new SqlServerTableFactory();
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(SqlServerOptions.HOSTNAME, SqlServerOptions.USERNAME, SqlServerOptions.DATABASE_NAME);
    }

    @Override
    Set<ConfigOption<?>> namingOptions() {
        return Set.of(SqlOptions.TABLE_NAME, SqlOptions.SCHEMA_NAME);
    }

    @Override
    CatalogNaming naming(ReadableConfig options) {
        return CatalogNaming.schemaQualified(options.get(SqlServerOptions.DATABASE_NAME));
    }

    @Override
    String defaultDatabase(ReadableConfig options) {
        return options.get(SqlServerOptions.DATABASE_NAME);
    }
}
