package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.TlsMode;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
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

    @Test
    void plaintextOnlyWhenConfigured() throws Exception {
        try (Connection c = PgConnections.open(PostgresTestConfigs.builder(db).tlsMode(TlsMode.DISABLE).build())) {
            assertThat(ownSsl(c)).isFalse();
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
