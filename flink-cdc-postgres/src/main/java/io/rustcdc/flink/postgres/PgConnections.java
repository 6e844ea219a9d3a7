package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.postgresql.PGProperty;

/**
 * Opens connections with the configured TLS and credentials, and with the session settings under
 * which PostgreSQL writes values as text (UTC, ISO dates, hex bytea, exact floats). The snapshot
 * and the stream use the same settings, so the same stored value gives the same text, and the
 * same decoded value, on both paths.
 */
final class PgConnections {
    static final String SESSION_SETTINGS = "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; "
            + "SET IntervalStyle = 'postgres'; SET extra_float_digits = 3; SET bytea_output = 'hex'";

    private PgConnections() {}

    /** An ordinary connection, for the catalogue and snapshots. */
    static Connection open(PostgresSourceConfig config) {
        return connect(config, properties(config));
    }

    /** A logical replication connection to the configured database. */
    static Connection openReplication(PostgresSourceConfig config) {
        Properties props = properties(config);
        PGProperty.REPLICATION.set(props, "database");
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
        PGProperty.PREFER_QUERY_MODE.set(props, "simple");
        return connect(config, props);
    }

    private static Connection connect(PostgresSourceConfig config, Properties props) {
        String url = "jdbc:postgresql://" + config.hostname() + ":" + config.port() + "/";
        try {
            Connection connection = DriverManager.getConnection(url, withDatabase(props, config));
            try (Statement s = connection.createStatement()) {
                s.execute(SESSION_SETTINGS);
            }
            return connection;
        } catch (SQLException e) {
            throw failure(config, e);
        }
    }

    private static Properties withDatabase(Properties props, PostgresSourceConfig config) {
        PGProperty.PG_DBNAME.set(props, config.database());
        return props;
    }

    private static Properties properties(PostgresSourceConfig config) {
        Properties props = new Properties();
        PGProperty.USER.set(props, config.username());
        PGProperty.PASSWORD.set(props, config.password().reveal());
        PGProperty.SSL_MODE.set(props, config.tlsMode().sslMode());
        if (config.tlsRootCert() != null) {
            PGProperty.SSL_ROOT_CERT.set(props, config.tlsRootCert());
        }
        PGProperty.CONNECT_TIMEOUT.set(props, (int) config.connectTimeout().toSeconds());
        PGProperty.APPLICATION_NAME.set(props, "rustcdc-flink");
        PGProperty.TCP_KEEP_ALIVE.set(props, true);
        return props;
    }

    /** A connection failure as a CdcException naming where, never the password. */
    static CdcException failure(PostgresSourceConfig config, SQLException e) {
        String where = config.username() + "@" + config.hostname() + ":" + config.port() + "/" + config.database();
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.equals("28P01") || state.equals("28000")) {
            return new CdcException(CdcException.Kind.PREREQUISITE, "PostgreSQL refused the login of " + where
                    + ": " + e.getMessage() + ". Check the user name and password, and that pg_hba.conf allows "
                    + "this host" + " (for streaming, a 'replication' line).", e);
        }
        if (state.equals("42501")) {
            return new CdcException(CdcException.Kind.PREREQUISITE, "PostgreSQL refused " + where + " a privilege: "
                    + e.getMessage() + ". Grant it to the role, or do this step as a role that has it.", e);
        }
        if (state.startsWith("08")) {
            return new CdcException(CdcException.Kind.CONNECTION, "Cannot connect to PostgreSQL at " + where + ": "
                    + e.getMessage() + (state.equals("08004") ? "" : ". Check host, port, network and the 'tls.mode' option."), e);
        }
        return new CdcException(CdcException.Kind.CONNECTION, "PostgreSQL at " + where + " failed: " + e.getMessage(), e);
    }
}
