package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Opens JDBC connections (MariaDB Connector/J, which speaks to MySQL and MariaDB alike) with the
 * configured TLS and credentials. A failure names the server, the user and the option to check,
 * never the password.
 */
final class MySqlConnections {
    /** Words of the driver's messages about TLS (certificates, key and trust stores, handshakes). */
    private static final List<String> TLS_WORDS = List.of("ssl", "tls", "certificate", "keystore", "truststore",
            "handshake", "pkix");

    private MySqlConnections() {}

    static Connection connect(MySqlSourceConfig config) {
        Properties props = new Properties();
        props.setProperty("user", config.username());
        props.setProperty("password", config.password().reveal());
        props.setProperty("sslMode", config.tlsMode().sslMode());
        if (config.tlsRootCert() != null) {
            props.setProperty("serverSslCert", config.tlsRootCert());
        }
        props.setProperty("connectTimeout", String.valueOf(config.connectTimeout().toMillis()));
        String url = "jdbc:mariadb://" + config.hostname() + ":" + config.port() + "/";
        try {
            return DriverManager.getConnection(url, props);
        } catch (SQLException e) {
            String message = message(config, e);
            String lower = message.toLowerCase(Locale.ROOT);
            boolean tls = TLS_WORDS.stream().anyMatch(lower::contains);
            throw new CdcException(CdcException.Kind.CONNECTION, "Could not connect to " + config.flavor() + " at "
                    + config.hostname() + ":" + config.port() + " as '" + config.username() + "' (tls.mode "
                    + config.tlsMode().name().toLowerCase(Locale.ROOT).replace('_', '-') + "): " + message
                    + (tls ? ". Check 'tls.mode' and 'tls.root-cert'." : ". Check host, port, user and password."));
        }
    }

    /** A failure on an open connection, naming the server and user, never the password. */
    static CdcException failure(MySqlSourceConfig config, SQLException e) {
        return new CdcException(CdcException.Kind.CONNECTION, config.flavor() + " at " + config.hostname() + ":"
                + config.port() + " as '" + config.username() + "' failed: " + message(config, e), e);
    }

    private static String message(MySqlSourceConfig config, SQLException e) {
        return e.getMessage() == null ? "" : e.getMessage().replace(config.password().reveal(), "******");
    }
}
