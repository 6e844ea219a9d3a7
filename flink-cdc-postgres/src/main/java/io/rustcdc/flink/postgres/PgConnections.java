package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.TlsMode;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.postgresql.PGProperty;

/**
 * Opens connections with the configured TLS and credentials (the password resolved anew for each
 * connection, and offered only by a method {@link PgAuthentication} allows), and with the session settings under
 * which PostgreSQL writes values as text (UTC, ISO dates, hex bytea, exact floats). The snapshot
 * and the stream use the same settings, so the same stored value gives the same text, and the
 * same decoded value, on both paths. Row-level security is off ({@code row_security = off}): a read
 * that a policy would filter fails instead of leaving rows out of the snapshot.
 */
final class PgConnections {
    static final String SESSION_SETTINGS = "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; "
            + "SET IntervalStyle = 'postgres'; SET extra_float_digits = 3; SET bytea_output = 'hex'; "
            + "SET row_security = off";
    /** The same settings for the transaction open ({@code SET LOCAL}). */
    static final String LOCAL_SETTINGS = SESSION_SETTINGS.replace("SET ", "SET LOCAL ");

    private PgConnections() {}

    /**
     * Whether the source's ordinary connections may go through a pooler in transaction mode ({@code wal.transport}
     * = {@code sql-peek}, meant for one), where neither a session's settings nor its named server-side statements
     * last from one transaction to the next: each transaction may run on another server session.
     */
    static boolean mayBePooled(PostgresSourceConfig config) {
        return config.walTransport() == WalTransport.SQL_PEEK;
    }

    /**
     * Makes the transaction just begun on {@code connection} (auto-commit off, nothing run in it yet) what the
     * session was set up to give, also where the session's setup ran on another server session (a pooler in
     * transaction mode): {@code isolation} ({@code SET TRANSACTION}, which PgJDBC's {@code
     * setTransactionIsolation} sets for the session instead) and the settings values are written under.
     */
    static void setUpTransaction(Connection connection, String isolation) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("SET TRANSACTION ISOLATION LEVEL " + isolation + "; " + LOCAL_SETTINGS);
        }
    }

    /** An ordinary connection, for the catalogue and snapshots. */
    static Connection open(PostgresSourceConfig config) {
        return connect(config, properties(config), false);
    }

    /** A logical replication connection to the configured database. */
    static Connection openReplication(PostgresSourceConfig config) {
        Properties props = properties(config);
        PGProperty.REPLICATION.set(props, "database");
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
        PGProperty.PREFER_QUERY_MODE.set(props, "simple");
        return connect(config, props, true);
    }

    /**
     * Opens a replication connection and closes it, so that a login that cannot replicate (a pooler or
     * proxy in between, no {@code replication} line in pg_hba.conf) fails with its remedy now.
     *
     * @throws CdcException as {@link #openReplication} does
     */
    static void requireReplicationLogin(PostgresSourceConfig config) throws SQLException {
        openReplication(config).close();
    }

    private static Connection connect(PostgresSourceConfig config, Properties props, boolean replication) {
        String url = "jdbc:postgresql://" + config.hostname() + ":" + config.port() + "/";
        Secret password = config.password().resolve();
        PGProperty.PASSWORD.set(props, password.reveal());
        long started = System.nanoTime();
        try {
            Connection connection = DriverManager.getConnection(url, withDatabase(props, config));
            try (Statement s = connection.createStatement()) {
                s.execute(SESSION_SETTINGS);
                // the login's read timeout, replaced: an ordinary connection's reads (snapshot chunks, catalogue
                // queries) by read.timeout, so that a dead peer fails them; a replication connection's by none (it
                // is polled, and the stream's slot check finds a dead walsender)
                connection.setNetworkTimeout(Runnable::run, replication ? 0 : (int) config.readTimeout().toMillis());
            } catch (SQLException e) {
                connection.close(); // a connection without the settings would decode values differently
                throw e;
            }
            return connection;
        } catch (SQLException e) {
            throw failure(config, password, e, System.nanoTime() - started >= config.connectTimeout().toNanos(),
                    replication);
        }
    }

    private static Properties withDatabase(Properties props, PostgresSourceConfig config) {
        PGProperty.PG_DBNAME.set(props, config.database());
        return props;
    }

    private static Properties properties(PostgresSourceConfig config) {
        Properties props = new Properties();
        PGProperty.USER.set(props, config.username());
        PGProperty.SSL_MODE.set(props, sslMode(config.tlsMode()));
        PGProperty.AUTHENTICATION_PLUGIN_CLASS_NAME.set(props, PgAuthentication.class.getName());
        if (config.tlsRootCert() != null) {
            PGProperty.SSL_ROOT_CERT.set(props, config.tlsRootCert());
        }
        // the TCP connect and the whole login (TLS, authentication) end within the timeout, and so does each
        // read until the session settings are made (an abandoned login's too): a server that accepts the
        // connection and never answers fails the attempt, and it is retried
        int timeout = (int) config.connectTimeout().toSeconds();
        PGProperty.CONNECT_TIMEOUT.set(props, timeout);
        PGProperty.LOGIN_TIMEOUT.set(props, timeout);
        PGProperty.SOCKET_TIMEOUT.set(props, timeout);
        PGProperty.APPLICATION_NAME.set(props, "rustcdc-flink");
        PGProperty.TCP_KEEP_ALIVE.set(props, true);
        if (mayBePooled(config)) {
            // no named server-side statements: a pooler in transaction mode may run the next use on a server
            // session that lacks the name, or where another client's statement holds it
            PGProperty.PREPARE_THRESHOLD.set(props, 0);
        }
        return props;
    }

    /** PgJDBC's {@code sslmode} of each mode: the same names. */
    static String sslMode(TlsMode mode) {
        switch (mode) {
            case DISABLE:
                return "disable";
            case REQUIRE:
                return "require";
            case VERIFY_CA:
                return "verify-ca";
            default:
                return "verify-full";
        }
    }

    /**
     * A failure on an open connection as a CdcException naming where, never the password: our
     * statements never hold it, and a literal one is masked all the same.
     */
    static CdcException failure(PostgresSourceConfig config, SQLException e) {
        return failure(config, config.connection().literalPassword(), e, false, false);
    }

    /**
     * A failure of {@code what} (say, "the replication stream of slot 'orders' at 0/16B3748") on an open
     * connection: {@link #failure(PostgresSourceConfig, SQLException)} with what failed in front.
     */
    static CdcException failure(PostgresSourceConfig config, String what, SQLException e) {
        CdcException f = failure(config, e);
        String message = f.getMessage();
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (f.kind() == CdcException.Kind.CONNECTION && (state.isEmpty() || state.startsWith("08"))) {
            // an open connection broke: "Cannot connect", which the attempt's failure says, would mislead
            message = "PostgreSQL at " + where(config) + " lost the connection: " + f.getCause().getMessage()
                    + " (a terminated walsender or session, a server restart or a network failure)";
        }
        return new CdcException(f.kind(), Character.toUpperCase(what.charAt(0)) + what.substring(1) + " failed: "
                + message, f.getCause());
    }

    /**
     * {@code timedOut}: {@code e} ended a connection attempt that took {@code connect.timeout} or longer;
     * {@code replication}: the attempt was for a replication connection.
     */
    private static CdcException failure(PostgresSourceConfig config, Secret password, SQLException e,
            boolean timedOut, boolean replication) {
        String where = where(config);
        PgAuthentication.Refusal refusal = PgAuthentication.refusal(e);
        if (refusal != null) {
            return new CdcException(CdcException.Kind.CONFIGURATION, "PostgreSQL at " + where + " " + refusal.getMessage(), e);
        }
        String message = password == null ? e.getMessage() : password.redact(e.getMessage());
        Throwable cause = password == null ? e : password.redact(e);
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (replication && state.equals("08P01") && PgFailure.fromServer(e)) {
            // PostgreSQL itself refuses a replication login otherwise (28000 by pg_hba.conf, 42501 without the
            // attribute); a protocol violation at login is a peer that does not speak it, such as PgBouncer
            return new CdcException(CdcException.Kind.CONFIGURATION, "PostgreSQL at " + where + " refused a "
                    + "replication connection as a protocol violation: " + message + ". A pooler or proxy that "
                    + "cannot carry the replication protocol (PgBouncer, for one) is probably in between: point '"
                    + PostgresOptions.HOSTNAME.key() + "' and '" + PostgresOptions.PORT.key() + "' at the server "
                    + "itself, or read the slot with plain SQL through the pooler: '"
                    + PostgresOptions.WAL_TRANSPORT.key() + "' = 'sql-peek'. Not retried.", cause);
        }
        PgFailure failure = PgFailure.of(e);
        switch (failure) {
            case LOGIN:
                return new CdcException(failure.kind(), "PostgreSQL refused the login of " + where + ": " + message
                        + ". Check the user name and password, and that pg_hba.conf allows this host (for streaming, "
                        + "a 'replication' line).", cause);
            case PRIVILEGE:
                if (replication) {
                    // the REPLICATION attribute is checked when a walsender starts: revoked, it refuses the next one
                    return new CdcException(failure.kind(), "PostgreSQL refused " + where + " a replication "
                            + "connection: " + message + ". The role needs the REPLICATION attribute (it may have "
                            + "been revoked since the stream started): ALTER ROLE "
                            + PgLiterals.quoteIdentifier(config.username()) + " REPLICATION;", cause);
                }
                return new CdcException(failure.kind(), "PostgreSQL refused " + where + " a privilege: " + message
                        + ". Grant it to the role, or do this step as a role that has it (where a row-level security "
                        + "policy would filter the rows read: ALTER ROLE " + PgLiterals.quoteIdentifier(config.username())
                        + " BYPASSRLS;).", cause);
            case REJECTED:
                return new CdcException(failure.kind(), "Cannot connect to PostgreSQL at " + where + ", rejected: "
                        + message + ". Check the 'tls.mode' and 'tls.root-cert' options against the server's TLS, "
                        + "and the authentication method pg_hba.conf gives this user; a retry would fail alike.", cause);
            case HOST_NAME:
                return new CdcException(failure.kind(), "Cannot connect to PostgreSQL at " + where + ": its "
                        + "certificate does not carry the host name '" + config.hostname() + "' (option '"
                        + PostgresOptions.HOSTNAME.key() + "'), which '" + PostgresOptions.TLS_MODE.key()
                        + "' = 'verify-full' requires: " + message + ". Connect by a name or address the certificate "
                        + "lists (its subject alternative names), have the certificate issued for this name, or set '"
                        + PostgresOptions.TLS_MODE.key() + "' = 'verify-ca' to check the CA only; a retry would "
                        + "be rejected alike.", cause);
            case CANCELLED:
                return new CdcException(failure.kind(), "PostgreSQL at " + where + " cancelled a statement (SQLSTATE "
                        + state + "): " + message + ". It ran longer than the statement_timeout of role "
                        + config.username() + " or database " + config.database() + " (SHOW statement_timeout), or "
                        + "an operator cancelled it (pg_cancel_backend). Lift the limit for this role: ALTER ROLE "
                        + PgLiterals.quoteIdentifier(config.username()) + " SET statement_timeout = 0; (or set it "
                        + "above the longest chunk read), or read smaller chunks ('"
                        + CdcSourceOptions.CHUNK_SIZE.key() + "'). Not retried: the same read would be cancelled "
                        + "alike.", cause);
            case TRANSIENT:
                if (timedOut) {
                    return new CdcException(failure.kind(), "PostgreSQL at " + where + " did not complete the "
                            + "connection and login within '" + PostgresOptions.CONNECT_TIMEOUT.key() + "' ("
                            + config.connectTimeout().toSeconds() + " s): " + message + ". Check host, port and "
                            + "network, and whether the server is overloaded; raise '"
                            + PostgresOptions.CONNECT_TIMEOUT.key() + "' for a slow link.", cause);
                }
                return new CdcException(failure.kind(), state.startsWith("08") || state.isEmpty()
                        ? "Cannot connect to PostgreSQL at " + where + ": " + message
                                + ". Check host, port, network and the 'tls.mode' option."
                        : "PostgreSQL at " + where + " failed for now (SQLSTATE " + state + "): " + message, cause);
            default:
                String known = message.contains("could not map file") && message.contains("to relation OID")
                        ? " This is a PostgreSQL bug in logical decoding (a table created while the slot was being "
                                + "created, its catalogue changes missed by the slot's snapshot builder): every decoding "
                                + "of this slot fails alike. Drop the slot, create it again when no DDL runs, and start "
                                + "the job without state."
                        : "";
                return new CdcException(failure.kind(), "PostgreSQL at " + where + " failed (SQLSTATE "
                        + (state.isEmpty() ? "none" : state) + "): " + message + ". Not retried: the same request "
                        + "would fail alike." + known, cause);
        }
    }

    private static String where(PostgresSourceConfig config) {
        return config.connection().describe() + "/" + config.database();
    }
}
