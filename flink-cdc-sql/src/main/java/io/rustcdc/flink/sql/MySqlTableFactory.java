package io.rustcdc.flink.sql;

import io.rustcdc.flink.mysql.MySqlConnector;
import io.rustcdc.flink.mysql.MySqlOptions;
import io.rustcdc.flink.mysql.MySqlPosition;
import io.rustcdc.flink.mysql.MySqlSourceConfig;
import io.rustcdc.flink.mysql.ServerFlavor;
import io.rustcdc.flink.source.spi.CdcConnector;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;

/**
 * {@code 'connector' = 'rustcdc-mysql'} (Oracle MySQL) and, as {@link MariaDb}, {@code 'rustcdc-mariadb'}:
 * one table ({@code 'database-name'} and {@code 'table-name'}), or the tables patterns in them match
 * ({@link SourceTables}), as a Flink SQL table. The two never
 * mix: their binlog positions and GTIDs differ, and the source checks which server it reads.
 */
@Internal
public class MySqlTableFactory extends CdcTableFactory<MySqlPosition, MySqlPosition> {
    private final ServerFlavor flavor;

    public MySqlTableFactory() {
        this(ServerFlavor.MYSQL);
    }

    MySqlTableFactory(ServerFlavor flavor) {
        this.flavor = flavor;
    }

    /** {@code 'connector' = 'rustcdc-mariadb'}. */
    @Internal
    public static final class MariaDb extends MySqlTableFactory {
        public MariaDb() {
            super(ServerFlavor.MARIADB);
        }
    }

    @Override
    public String factoryIdentifier() {
        return flavor.connectorName();
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(MySqlOptions.HOSTNAME, MySqlOptions.USERNAME, MySqlOptions.SERVER_ID, MySqlOptions.DATABASE_NAME,
                SqlOptions.TABLE_NAME);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return withSourceOptions(FlinkCdcNames.MYSQL,
                MySqlOptions.PORT, MySqlOptions.PASSWORD, MySqlOptions.PASSWORD_ENV, MySqlOptions.PASSWORD_FILE,
                MySqlOptions.TLS_MODE, MySqlOptions.TLS_ROOT_CERT, MySqlOptions.CONNECT_TIMEOUT, MySqlOptions.READ_TIMEOUT,
                MySqlOptions.CONNECT_MAX_RETRIES, MySqlOptions.CONNECT_RETRY_INITIAL_DELAY,
                MySqlOptions.CONNECT_RETRY_MAX_DELAY,
                MySqlOptions.FOREIGN_KEY_CASCADES,
                MySqlOptions.ALLOW_PUBLIC_KEY_RETRIEVAL, MySqlOptions.BINLOG_CHECK_INTERVAL,
                MySqlOptions.BINLOG_READ_TIMEOUT);
    }

    @Override
    CdcConnector<MySqlPosition, MySqlPosition> connector(ReadableConfig options) {
        return MySqlConnector.create(MySqlSourceConfig.fromConfiguration(flavor, options));
    }

    @Override
    SourceTables tables(ReadableConfig options) {
        // the database is the schema: 'database-name' may be a pattern too
        return SourceTables.of(null, options.get(MySqlOptions.DATABASE_NAME), options.get(SqlOptions.TABLE_NAME));
    }

    @Override
    ConnectorTypes connectorTypes() {
        return new MySqlTypes();
    }
}
