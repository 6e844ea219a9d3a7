package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.Secret;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.security.cert.CertificateException;
import java.sql.SQLException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;
import org.postgresql.util.ServerErrorMessage;

/**
 * The classification of PostgreSQL failures by SQLSTATE, on PSQLExceptions as PgJDBC makes them: from
 * a server's error message (severity, code, text) or with a state of PgJDBC's own.
 */
class PgFailureTest {
    private static final PostgresSourceConfig CONFIG = PostgresSourceConfig.builder().hostname("db.example")
            .port(5433).database("shop").username("cdc").password(Secret.of("s3cret-pw")).build();

    @Test
    void connectionShutdownResourceAndConflictStatesAreTransient() {
        for (String state : new String[] {"08000", "08001", "08003", "08006", "08P01", "57P01", "57P02", "57P03",
                "53000", "53100", "53200", "53300", "40001", "40P01", "55006", "55P03"}) {
            assertThat(PgFailure.of(server("FATAL", state, "a failure"))).as(state).isEqualTo(PgFailure.TRANSIENT);
        }
        assertThat(PgFailure.of(new PSQLException("An I/O error occurred while sending to the backend.",
                PSQLState.CONNECTION_FAILURE, new SocketTimeoutException("Read timed out")))).isEqualTo(PgFailure.TRANSIENT);
        SQLException noState = new SQLException("copy failed", (String) null, new IOException("Connection reset"));
        assertThat(PgFailure.of(noState)).isEqualTo(PgFailure.TRANSIENT);
    }

    @Test
    void loginPrivilegeRejectionAndEverythingElseAreFinal() {
        assertThat(PgFailure.of(server("FATAL", "28P01", "password authentication failed for user \"cdc\"")))
                .isEqualTo(PgFailure.LOGIN);
        assertThat(PgFailure.of(server("FATAL", "28000", "no pg_hba.conf entry for host"))).isEqualTo(PgFailure.LOGIN);
        assertThat(PgFailure.of(server("ERROR", "42501", "permission denied for table orders")))
                .isEqualTo(PgFailure.PRIVILEGE);
        assertThat(PgFailure.of(new PSQLException("The server does not support SSL.", PSQLState.CONNECTION_REJECTED)))
                .isEqualTo(PgFailure.REJECTED);
        SSLHandshakeException untrusted = new SSLHandshakeException("PKIX path building failed");
        untrusted.initCause(new CertificateException("unable to find valid certification path"));
        assertThat(PgFailure.of(new PSQLException("SSL error: PKIX path building failed",
                PSQLState.CONNECTION_FAILURE, untrusted))).isEqualTo(PgFailure.REJECTED);
        for (String state : new String[] {"42P01", "42601", "42703", "42704", "3D000", "55000", "57P04", "53400",
                "22P02", "XX000"}) {
            assertThat(PgFailure.of(server("ERROR", state, "a failure"))).as(state).isEqualTo(PgFailure.FINAL);
        }
        assertThat(PgFailure.of(new SQLException("no state, no I/O"))).isEqualTo(PgFailure.FINAL);
    }

    @Test
    void onlyTransientFailuresAreRetriedAndEachNamesWhere() {
        CdcException tooMany = PgConnections.failure(CONFIG, server("FATAL", "53300",
                "too many connections for role \"cdc\""));
        assertThat(ConnectionRetry.retries(tooMany)).isTrue();
        assertThat(tooMany).hasMessageContaining("PostgreSQL at cdc@db.example:5433/shop failed for now (SQLSTATE 53300)")
                .hasMessageContaining("too many connections for role");

        CdcException missing = PgConnections.failure(CONFIG, server("ERROR", "42P01",
                "relation \"public.orders\" does not exist"));
        assertThat(missing.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
        assertThat(ConnectionRetry.retries(missing)).isFalse();
        assertThat(missing).hasMessageContaining("PostgreSQL at cdc@db.example:5433/shop failed (SQLSTATE 42P01)")
                .hasMessageContaining("\"public.orders\" does not exist").hasMessageContaining("Not retried");

        CdcException privilege = PgConnections.failure(CONFIG, server("ERROR", "42501",
                "permission denied for table orders"));
        assertThat(privilege.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
        assertThat(privilege).hasMessageContaining("refused cdc@db.example:5433/shop a privilege")
                .hasMessageContaining("Grant it to the role");

        CdcException noTls = PgConnections.failure(CONFIG,
                new PSQLException("The server does not support SSL.", PSQLState.CONNECTION_REJECTED));
        assertThat(ConnectionRetry.retries(noTls)).isFalse();
        assertThat(noTls).hasMessageContaining("Cannot connect to PostgreSQL at cdc@db.example:5433/shop, rejected")
                .hasMessageContaining("'tls.mode'");

        CdcException lost = PgConnections.failure(CONFIG, new PSQLException("An I/O error occurred while sending to "
                + "the backend.", PSQLState.CONNECTION_FAILURE, new IOException("Connection reset")));
        assertThat(lost.kind()).isEqualTo(CdcException.Kind.CONNECTION);
        assertThat(lost).hasMessageContaining("Cannot connect to PostgreSQL at cdc@db.example:5433/shop");
    }

    /**
     * A host name the certificate does not carry, as PgJDBC's MakeSSL reports it under verify-full: 08006
     * without a cause, in a text translated to the JVM's locale that names the verifier. Other 08006
     * failures, with a cause or from the server, stay transient.
     */
    @Test
    void aHostNameMismatchIsFinalNamingTheOptions() {
        PSQLException english = new PSQLException("The hostname db.example could not be verified by "
                + "hostnameverifier PgjdbcHostnameVerifier.", PSQLState.CONNECTION_FAILURE);
        assertThat(PgFailure.of(english)).isEqualTo(PgFailure.HOST_NAME);
        // PgJDBC's German text (messages_de): only the verifier's name is not translated
        assertThat(PgFailure.of(new PSQLException("Der Hostname db.example konnte nicht mit dem Hostnameverifier "
                + "PgjdbcHostnameVerifier verifiziert werden.", PSQLState.CONNECTION_FAILURE)))
                .isEqualTo(PgFailure.HOST_NAME);
        assertThat(PgFailure.of(new PSQLException("Unknown Response Type x.", PSQLState.CONNECTION_FAILURE)))
                .isEqualTo(PgFailure.TRANSIENT);
        assertThat(PgFailure.of(new PSQLException("The hostname verifier said: connection reset",
                PSQLState.CONNECTION_FAILURE, new IOException("Connection reset")))).isEqualTo(PgFailure.TRANSIENT);
        assertThat(PgFailure.of(server("FATAL", "08006", "hostnameverifier"))).isEqualTo(PgFailure.TRANSIENT);

        CdcException mismatch = PgConnections.failure(CONFIG, english);
        assertThat(mismatch.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
        assertThat(ConnectionRetry.retries(mismatch)).isFalse();
        assertThat(mismatch).hasMessageContaining("Cannot connect to PostgreSQL at cdc@db.example:5433/shop")
                .hasMessageContaining("does not carry the host name 'db.example' (option 'hostname')")
                .hasMessageContaining("'tls.mode' = 'verify-full'")
                .hasMessageContaining("'tls.mode' = 'verify-ca'")
                .hasMessageContaining("a retry would be rejected alike");
    }

    /**
     * 57014, a statement the server cancelled (statement_timeout or pg_cancel_backend): final, naming
     * the setting, the statement that lifts it for the role, and the chunk size option.
     */
    @Test
    void aCancelledStatementIsFinalNamingStatementTimeout() {
        PSQLException cancelled = server("ERROR", "57014", "canceling statement due to statement timeout");
        assertThat(PgFailure.of(cancelled)).isEqualTo(PgFailure.CANCELLED);
        CdcException failure = PgConnections.failure(CONFIG, cancelled);
        assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
        assertThat(ConnectionRetry.retries(failure)).isFalse();
        assertThat(failure).hasMessageContaining("PostgreSQL at cdc@db.example:5433/shop cancelled a statement "
                        + "(SQLSTATE 57014): ERROR: canceling statement due to statement timeout")
                .hasMessageContaining("statement_timeout of role cdc or database shop")
                .hasMessageContaining("pg_cancel_backend")
                .hasMessageContaining("ALTER ROLE \"cdc\" SET statement_timeout = 0;")
                .hasMessageContaining("'scan.incremental.snapshot.chunk.size'")
                .hasMessageNotContaining("s3cret-pw");
    }

    /** A failure of the stream or the slot check says what failed first; its kind is the classification's. */
    @Test
    void aStreamFailureNamesWhatFailedAndKeepsItsClassification() {
        CdcException terminated = PgConnections.failure(CONFIG, "the replication stream of slot 'orders' at 0/16B3748",
                server("FATAL", "57P01", "terminating connection due to administrator command"));
        assertThat(ConnectionRetry.retries(terminated)).isTrue();
        assertThat(terminated).hasMessageStartingWith("The replication stream of slot 'orders' at 0/16B3748 failed: "
                + "PostgreSQL at cdc@db.example:5433/shop failed for now (SQLSTATE 57P01)");
        CdcException lost = PgConnections.failure(CONFIG, "the replication stream of slot 'orders' at 0/16B3748",
                new PSQLException("Database connection failed when reading from copy", PSQLState.CONNECTION_FAILURE,
                        new java.io.EOFException()));
        assertThat(ConnectionRetry.retries(lost)).isTrue();
        assertThat(lost).hasMessage("The replication stream of slot 'orders' at 0/16B3748 failed: PostgreSQL at "
                + "cdc@db.example:5433/shop lost the connection: Database connection failed when reading from copy "
                + "(a terminated walsender or session, a server restart or a network failure)");
        CdcException revoked = PgConnections.failure(CONFIG, "the slot check of slot 'orders'",
                server("ERROR", "42501", "permission denied for view pg_replication_slots"));
        assertThat(ConnectionRetry.retries(revoked)).isFalse();
        assertThat(revoked.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
        assertThat(revoked).hasMessageStartingWith("The slot check of slot 'orders' failed: PostgreSQL refused");
    }

    /** An error as the server sends it: the fields PgJDBC parses, each a letter, its text and a NUL. */
    private static PSQLException server(String severity, String state, String message) {
        return new PSQLException(new ServerErrorMessage("S" + severity + "\0V" + severity + "\0C" + state + "\0M"
                + message + "\0"));
    }
}
