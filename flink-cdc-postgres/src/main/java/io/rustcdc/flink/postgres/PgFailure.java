package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import java.io.IOException;
import java.security.cert.CertificateException;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Set;
import org.postgresql.util.PSQLException;

/**
 * What a failure of PostgreSQL or PgJDBC is, by its SQLSTATE (PostgreSQL's appendix "PostgreSQL
 * Error Codes"; PgJDBC reports what it detects itself with the same codes), and so whether a retry
 * may cure it: only {@link #TRANSIENT} is retried.
 */
enum PgFailure {
    /**
     * Class 08 (connection exception, but 08004), 57P01-57P03 (the server shutting down, crashed or
     * starting), class 53 (insufficient resources, 53300 too many connections; but 53400), 40001 and
     * 40P01 (a transaction rolled back by a conflict), 55006 (object in use: a replication slot still
     * held by the walsender of a connection that died), 55P03 (a lock not granted within lock_timeout),
     * and an I/O failure without SQLSTATE. Another attempt may succeed once the other side recovers or
     * the other session lets go.
     */
    TRANSIENT(CdcException.Kind.CONNECTION),
    /** Class 28 (invalid authorization): the login refused. */
    LOGIN(CdcException.Kind.PREREQUISITE),
    /** 42501 (insufficient privilege): a grant missing. */
    PRIVILEGE(CdcException.Kind.PREREQUISITE),
    /**
     * The connection refused by its settings: 08004 (PgJDBC: the server has no TLS, asks for an
     * authentication the driver cannot give) or a server certificate that TLS verification rejects.
     */
    REJECTED(CdcException.Kind.PREREQUISITE),
    /**
     * Under {@code sslmode=verify-full}, a trusted certificate that does not carry the host name the
     * source connects to. PgJDBC reports it as 08006 (like a network failure) without a cause or a
     * server message, in a text naming its host name verifier ({@code MakeSSL.verifyPeerName}); only
     * that name is looked for, since the rest of the text is translated to the JVM's locale.
     */
    HOST_NAME(CdcException.Kind.PREREQUISITE),
    /**
     * 57014 (query_canceled): the server cancelled a statement, because it ran longer than the
     * {@code statement_timeout} the role or database sets, or on a {@code pg_cancel_backend}. Final:
     * the same read runs as long again under the same setting; the remedy names the setting.
     */
    CANCELLED(CdcException.Kind.PREREQUISITE),
    /**
     * Everything else: a missing object (42P01 undefined table, 42704 a publication or slot), a syntax
     * error, a database dropped (57P04), a configured limit (53400, e.g. all replication slots in use).
     * The same call fails the same way again, until an operator acts.
     */
    FINAL(CdcException.Kind.PREREQUISITE);

    /** What PgJDBC names its default host name verifier in the (translated) text of a mismatch. */
    private static final String HOST_NAME_VERIFIER = "hostnameverifier";

    private static final Set<String> TRANSIENT_STATES = Set.of("57P01", "57P02", "57P03", "40001", "40P01",
            "55006", "55P03");

    private final CdcException.Kind kind;

    PgFailure(CdcException.Kind kind) {
        this.kind = kind;
    }

    /** The kind of CdcException that reports such a failure. */
    CdcException.Kind kind() {
        return kind;
    }

    static PgFailure of(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (state.equals("08004") || causedBy(e, CertificateException.class)) {
            return REJECTED;
        }
        if (state.equals("08006") && e.getCause() == null && !fromServer(e) && e.getMessage() != null
                && e.getMessage().toLowerCase(Locale.ROOT).contains(HOST_NAME_VERIFIER)) {
            return HOST_NAME;
        }
        if (state.equals("57014")) {
            return CANCELLED;
        }
        if (state.startsWith("08") || (state.startsWith("53") && !state.equals("53400"))
                || TRANSIENT_STATES.contains(state)) {
            return TRANSIENT;
        }
        if (state.startsWith("28")) {
            return LOGIN;
        }
        if (state.equals("42501")) {
            return PRIVILEGE;
        }
        return state.isEmpty() && causedBy(e, IOException.class) ? TRANSIENT : FINAL;
    }

    /** Whether the server sent {@code e} (an ErrorResponse), rather than PgJDBC detecting it. */
    static boolean fromServer(SQLException e) {
        return e instanceof PSQLException && ((PSQLException) e).getServerErrorMessage() != null;
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
