package io.rustcdc.flink.sql;

import io.rustcdc.flink.mysql.MySqlOptions;
import io.rustcdc.flink.mysql.ServerFlavor;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.catalog.CommonCatalogOptions;

/**
 * {@code CREATE CATALOG my WITH ('type' = 'rustcdc-mysql', ...)} (Oracle MySQL) and, as {@link MariaDb}, {@code
 * 'rustcdc-mariadb'}: each database of the server whose tables the patterns select is a Flink database, each
 * table is named by its name ({@code my.shop.orders}) and read by the connector of the same name with the
 * catalog's options. {@code 'default-database'} is the database a session is in after {@code USE CATALOG}.
 */
@Internal
public class MySqlCatalogFactory extends CdcCatalogFactory {
    /** Flink's usual catalog option: the database of {@code USE CATALOG}. */
    static final ConfigOption<String> DEFAULT_DATABASE = ConfigOptions.key(CommonCatalogOptions.DEFAULT_DATABASE_KEY)
            .stringType()
            .noDefaultValue()
            .withDescription("The database a session is in after USE CATALOG.");

    private final ServerFlavor flavor;

    public MySqlCatalogFactory() {
        this(ServerFlavor.MYSQL);
    }

    MySqlCatalogFactory(ServerFlavor flavor) {
        this.flavor = flavor;
    }

    /** {@code 'type' = 'rustcdc-mariadb'}. */
    @Internal
    public static final class MariaDb extends MySqlCatalogFactory {
        public MariaDb() {
            super(ServerFlavor.MARIADB);
        }
    }

    @Override
    CdcTableFactory<?, ?> tableFactory() {
        return new MySqlTableFactory(flavor);
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(MySqlOptions.HOSTNAME, MySqlOptions.USERNAME, DEFAULT_DATABASE);
    }

    @Override
    Set<ConfigOption<?>> namingOptions() {
        return Set.of(SqlOptions.TABLE_NAME, MySqlOptions.DATABASE_NAME);
    }

    @Override
    Set<ConfigOption<?>> ownOptions() {
        return Set.of(DEFAULT_DATABASE);
    }

    @Override
    CatalogNaming naming(ReadableConfig options) {
        return CatalogNaming.databases();
    }

    /**
     * The connector's configuration requires a {@code server-id}, which the catalog does not (each query gives its
     * own). The catalogue is read with SQL only (tables and their columns), and no binlog client is opened, so
     * this id is never sent to the server; the largest id, so that it stands out in a configuration's toString.
     */
    @Override
    Map<String, String> catalogueOptions(Map<String, String> tableOptions) {
        Map<String, String> options = new HashMap<>(tableOptions);
        options.putIfAbsent(MySqlOptions.SERVER_ID.key(), "4294967295");
        return options;
    }

    @Override
    String defaultDatabase(ReadableConfig options) {
        return options.get(DEFAULT_DATABASE);
    }
}
