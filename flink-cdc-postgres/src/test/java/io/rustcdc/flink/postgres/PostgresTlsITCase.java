package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.TlsMode;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.testing.TestCertificates;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** TLS is the default; verification modes check the server's certificate; plaintext only when chosen. */
@ExtendWith(PostgresExtension.class)
@Timeout(120)
class PostgresTlsITCase {
    private PostgresDatabase db;

    @BeforeEach
    void setUp(PostgresDatabase db) {
        this.db = db;
        assumeTrue(db.server().tlsCertificate() != null, "the external server's certificate is not known here");
    }

    @Test
    void defaultConfigurationEncryptsBothConnections() throws Exception {
        db.execute("CREATE TABLE IF NOT EXISTS t (id int PRIMARY KEY)", "ALTER TABLE t OWNER TO " + db.replicationUser());
        PostgresSourceConfig config = PostgresTestConfigs.builder(db).tlsMode(TlsMode.REQUIRE)
                .slotName("tls_slot").publicationName("tls_pub").createSlotIfMissing(true)
                .createPublicationIfMissing(true).build();
        try (Connection c = PgConnections.open(config)) {
            assertThat(ownSsl(c)).isTrue();
        }
        PostgresConnector connector = PostgresConnector.create(config);
        PostgresPosition start;
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = connector.openSession()) {
            start = session.prepareStream(List.of(TableId.of(db.name(), "public", "t")), false);
        }
        try (ChangeStream<PostgresPosition> stream = connector.openStream(start, TableFilter.all())) {
            assertThat(db.queryValue("SELECT bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_replication r "
                    + "ON r.pid = s.pid WHERE r.application_name = 'rustcdc-flink'")).isEqualTo("t");
        }
    }

    @Test
    void verifyFullAcceptsTheRightCaAndRefusesAnother(@org.junit.jupiter.api.io.TempDir Path other) throws Exception {
        PostgresSourceConfig good = PostgresTestConfigs.builder(db).tlsMode(TlsMode.VERIFY_FULL)
                .tlsRootCert(db.server().tlsCertificate().toString()).build();
        try (Connection c = PgConnections.open(good)) {
            assertThat(ownSsl(c)).isTrue();
        }
        Path wrongCa = TestCertificates.selfSigned(Files.createDirectories(other.resolve("ca"))).certificate;
        PostgresSourceConfig bad = PostgresTestConfigs.builder(db).tlsMode(TlsMode.VERIFY_CA)
                .tlsRootCert(wrongCa.toString()).build();
        // a certificate the root does not verify is final: a retry would be rejected alike
        assertThatThrownBy(() -> PgConnections.open(bad)).isInstanceOfSatisfying(CdcException.class,
                        e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                .hasMessageContaining("Cannot connect to PostgreSQL")
                .hasMessageContaining(", rejected: ")
                .hasMessageContaining("'tls.root-cert'")
                .hasMessageNotContaining(db.replicationPassword());
    }

    /**
     * verify-full connecting by an address the server's certificate does not carry (127.0.0.2, forwarded
     * to the server, whose TestCertificates certificate names localhost and 127.0.0.1): a final
     * PREREQUISITE naming the options and the remedy, after one connection attempt and no retry. verify-ca,
     * which checks the CA and not the name, connects through the same address.
     */
    @Test
    void verifyFullRefusesAHostNameTheCertificateDoesNotCarry() throws Exception {
        try (Forwarder forwarder = new Forwarder("127.0.0.2", db.host(), db.port())) {
            PostgresSourceConfig.Builder config = PostgresTestConfigs.builder(db).hostname("127.0.0.2")
                    .port(forwarder.port()).tlsRootCert(db.server().tlsCertificate().toString())
                    .connectionRetry(ConnectionRetry.defaults());
            try (Connection c = PgConnections.open(config.tlsMode(TlsMode.VERIFY_CA).build())) {
                assertThat(ownSsl(c)).isTrue();
            }
            int before = forwarder.accepted.get();
            CountedRetries retries = new CountedRetries(PostgresConnector.create(
                    config.tlsMode(TlsMode.VERIFY_FULL).build()));
            assertThatThrownBy(() -> retries.connector().openSession()).isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining("Cannot connect to PostgreSQL at " + db.replicationUser() + "@127.0.0.2:"
                            + forwarder.port())
                    .hasMessageContaining("does not carry the host name '127.0.0.2' (option 'hostname')")
                    .hasMessageContaining("'tls.mode' = 'verify-full'")
                    .hasMessageContaining("'tls.mode' = 'verify-ca'")
                    .hasMessageNotContaining(db.replicationPassword());
            assertThat(forwarder.accepted.get() - before).as("connections: one attempt").isEqualTo(1);
            assertThat(retries.count()).isZero();
        }
    }

    @Test
    void plaintextOnlyWhenConfigured() throws Exception {
        try (Connection c = PgConnections.open(PostgresTestConfigs.builder(db).tlsMode(TlsMode.DISABLE).build())) {
            assertThat(ownSsl(c)).isFalse();
        }
    }

    /**
     * Forwards each connection to an address of its own to the server, so that the source connects by a
     * name the certificate does not carry (any 127.0.0.0/8 address reaches the loopback interface on Linux).
     */
    private static final class Forwarder implements AutoCloseable {
        final AtomicInteger accepted = new AtomicInteger();
        private final ServerSocket listener;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        Forwarder(String address, String host, int port) throws IOException {
            listener = new ServerSocket(0, 50, InetAddress.getByName(address));
            Thread acceptor = new Thread(() -> {
                while (!listener.isClosed()) {
                    try {
                        Socket client = listener.accept();
                        accepted.incrementAndGet();
                        Socket server = new Socket(host, port);
                        sockets.add(client);
                        sockets.add(server);
                        pump(client, server);
                        pump(server, client);
                    } catch (IOException e) {
                        return; // closed
                    }
                }
            }, "tls-test-forwarder");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        private static void pump(Socket from, Socket to) {
            Thread t = new Thread(() -> {
                try {
                    from.getInputStream().transferTo(to.getOutputStream());
                } catch (IOException e) {
                    // the other side closed
                } finally {
                    try {
                        to.close();
                        from.close();
                    } catch (IOException ignored) {
                        // closed already
                    }
                }
            }, "tls-test-forwarder-pump");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    private static boolean ownSsl(Connection c) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }
}
