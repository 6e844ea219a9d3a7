package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.TlsMode;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import javax.annotation.Nullable;

/**
 * Opens JDBC connections (MariaDB Connector/J, which speaks to MySQL and MariaDB alike) with the
 * configured TLS and credentials, the password resolved anew for each connection. A failure names
 * the server, the user and the option to check, never the password.
 */
final class MySqlConnections {
    /** Words of the driver's messages about TLS (certificates, key and trust stores, handshakes). */
    private static final List<String> TLS_WORDS = List.of("ssl", "tls", "certificate", "keystore", "truststore",
            "handshake", "pkix");

    /** The server refused the user name and password (or the host the user may log in from). */
    private static final int ER_ACCESS_DENIED_ERROR = 1045;
    private static final int ER_CON_COUNT_ERROR = 1040;
    private static final int ER_TOO_MANY_USER_CONNECTIONS = 1203;
    private static final String FULL_REMEDY = ". The server has no room for another connection ('max_connections', "
            + "or the user's 'max_user_connections'): the source retries ('connect.max-retries'); free connections "
            + "or raise the limit.";

    private MySqlConnections() {}

    static Connection connect(MySqlSourceConfig config) {
        return connect(config, new TrackedSocketFactory.Opening());
    }

    /** As {@link #connect(MySqlSourceConfig)}, the sockets being opened in {@code opening}, which another thread may cut. */
    static Connection connect(MySqlSourceConfig config, TrackedSocketFactory.Opening opening) {
        Secret password = config.password().resolve();
        Properties props = new Properties();
        props.setProperty("user", config.username());
        props.setProperty("password", password.reveal());
        props.setProperty("sslMode", sslMode(config.tlsMode()));
        if (config.tlsRootCert() != null) {
            props.setProperty("serverSslCert", config.tlsRootCert());
        }
        props.setProperty("connectTimeout", String.valueOf(config.connectTimeout().toMillis()));
        // a read (a snapshot chunk's rows, a catalogue query) that gets nothing for read.timeout: a dead peer
        props.setProperty("socketTimeout", String.valueOf(config.readTimeout().toMillis()));
        if (config.allowPublicKeyRetrieval()) {
            props.setProperty("allowPublicKeyRetrieval", "true");
        }
        String url = "jdbc:mariadb://" + config.hostname() + ":" + config.port() + "/";
        try {
            return TrackedSocketFactory.connect(socketFactory -> {
                if (socketFactory != null) {
                    props.setProperty("socketFactory", socketFactory);
                }
                return DriverManager.getConnection(url, props);
            }, opening);
        } catch (SQLException e) {
            String message = message(password, e);
            String lower = message.toLowerCase(Locale.ROOT);
            boolean tls = TLS_WORDS.stream().anyMatch(lower::contains);
            // a refused login does not cure itself between attempts: final, as on PostgreSQL
            CdcException.Kind kind = e.getErrorCode() == ER_ACCESS_DENIED_ERROR
                    ? CdcException.Kind.PREREQUISITE : CdcException.Kind.CONNECTION;
            throw new CdcException(kind, "Could not connect to " + config.flavor() + " at "
                    + config.hostname() + ":" + config.port() + " as '" + config.username() + "' (tls.mode "
                    + config.tlsMode() + "): " + message
                    + (isServerFull(e) ? FULL_REMEDY : remedy(tls, lower, config)),
                    password.redact(e));
        }
    }

    /** ER_CON_COUNT_ERROR (max_connections) or ER_TOO_MANY_USER_CONNECTIONS (the user's max_user_connections). */
    private static boolean isServerFull(SQLException e) {
        return e.getErrorCode() == ER_CON_COUNT_ERROR || e.getErrorCode() == ER_TOO_MANY_USER_CONNECTIONS;
    }

    /** What to check, for a failed login's message. */
    private static String remedy(boolean tls, String lowerMessage, MySqlSourceConfig config) {
        if (lowerMessage.contains("rsa public key") && !config.allowPublicKeyRetrieval()) {
            // caching_sha2_password without TLS, the user's login not cached by the server yet
            return ". The server asks for the password encrypted with its RSA public key: use TLS ('tls.mode' = "
                    + "'require' or stricter), or set '" + MySqlSourceConfig.ALLOW_PUBLIC_KEY_RETRIEVAL + "' = 'true' "
                    + "to fetch the key over the unencrypted connection.";
        }
        return tls ? ". Check 'tls.mode' and 'tls.root-cert'." : ". Check host, port, user and password.";
    }

    /** MariaDB Connector/J's {@code sslMode} of each mode. */
    static String sslMode(TlsMode mode) {
        switch (mode) {
            case DISABLE:
                return "disable";
            case REQUIRE:
                return "trust";
            case VERIFY_CA:
                return "verify-ca";
            default:
                return "verify-full";
        }
    }

    /**
     * A failure on an open connection, naming the server and user, never the password: our
     * statements never hold it, and a literal one is masked all the same.
     */
    static CdcException failure(MySqlSourceConfig config, SQLException e) {
        Secret password = config.connection().literalPassword();
        return new CdcException(CdcException.Kind.CONNECTION, config.flavor() + " at " + config.hostname() + ":"
                + config.port() + " as '" + config.username() + "' failed: " + message(password, e),
                password == null ? e : password.redact(e));
    }

    private static String message(@Nullable Secret password, SQLException e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        return password == null ? message : password.redact(message);
    }
}
