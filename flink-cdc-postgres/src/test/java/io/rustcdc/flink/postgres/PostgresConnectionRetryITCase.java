package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresServer;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.testing.CapturedLogs;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.RestartingJob;
import io.rustcdc.flink.testing.TwoTables;
import io.rustcdc.flink.testing.net.FaultProxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The source's own connection retry, with Flink's restarts off, through a {@link FaultProxy}: the
 * replication connection cut mid-stream and every reconnect refused for a few seconds ends in an
 * exact changelog with no task failure (the retries counted, each logged); retries used up fail the
 * job once with the cause; a refused login and a missing privilege are not retried (one connection
 * attempt), too many connections are retried until one is free; a fast shutdown and restart of the
 * server while streaming ends in an exact changelog.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(180)
class PostgresConnectionRetryITCase {
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final Predicate<String> REPLICATION = o -> o.contains("\0replication\0database\0");
    private static final int ROWS = 2_000;
    private static final String LOGIN_REFUSED = "refused the login";

    private PostgresDatabase db;
    private String slot;

    @BeforeEach
    void setUp(PostgresDatabase db, TestInfo test) {
        this.db = db;
        this.slot = "retry_" + test.getTestMethod().get().getName().substring(0, 12).toLowerCase();
        Writers.createTables(db, ROWS);
    }

    @Test
    void aCutReplicationConnectionAndRefusedReconnectsAreRetriedExactly(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        ConnectionRetry retry = ConnectionRetry.of(12, Duration.ofMillis(200), Duration.ofSeconds(1));
        try (CapturedLogs logs = CapturedLogs.start("io.rustcdc.none");
                FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                RestartingJob job = RestartingJob.startWithoutRestarts(cluster, source(proxy, retry, null))) {
            JsonChangelog changelog = snapshotted(job);
            try (ConcurrentWriters writers = Writers.start(db, 2, 4_000, ROWS)) {
                Poll.until("a replication link", Duration.ofSeconds(60), () -> !proxy.links(REPLICATION).isEmpty());
                Thread.sleep(1_000);
                proxy.refuse(true);
                assertThat(proxy.cut(REPLICATION)).isEqualTo(1);
                Thread.sleep(2_500); // the server is "down": every reconnect is refused
                proxy.refuse(false);
                writers.awaitEnd();
                Map<String, Map<String, String>> expected = rows();
                changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, expected), Duration.ofSeconds(90));
            }
            assertThat(changelog.violations()).isEmpty();
            assertThat(job.failures()).as("task failures").isZero();
            assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
            long retries = retries(job.jobId());
            System.out.printf("%s: %d retries; ops %s%n", slot, retries, changelog.ops());
            assertThat(retries).as("retries: the cut, then refused reconnects").isGreaterThanOrEqualTo(2);
            assertThat(logs.containing("Connection failure of the postgres change stream at ")).isNotEmpty()
                    .allSatisfy(line -> assertThat(line).contains(" WARN ").containsPattern("retry \\d+ of 12 in \\d+ ms: ")
                            .doesNotContain(db.replicationPassword()));
            assertThat(logs.containing("Reopened the postgres change stream at ")).hasSize(1);
        }
    }

    @Test
    void retriesUsedUpFailTheJobOnceWithTheCause(@InjectMiniCluster MiniCluster cluster) throws Exception {
        ConnectionRetry retry = ConnectionRetry.of(2, Duration.ofMillis(50), Duration.ofMillis(100));
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                RestartingJob job = RestartingJob.startWithoutRestarts(cluster, source(proxy, retry, null))) {
            snapshotted(job);
            Poll.until("a replication link", Duration.ofSeconds(60), () -> !proxy.links(REPLICATION).isEmpty());
            proxy.refuse(true);
            proxy.cut(REPLICATION);
            CdcException failure = job.awaitFailure(Duration.ofSeconds(60));
            // the reader's stream or the enumerator's table discovery, whichever gave up first
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.CONNECTION);
            assertThat(failure).hasMessageContaining("Gave up on ").hasMessageContaining(" after 2 retries in ")
                    .hasMessageContaining("Cannot connect to PostgreSQL at " + db.replicationUser() + "@"
                            + proxy.host() + ":" + proxy.port())
                    .hasMessageContaining("Raise 'connect.max-retries' or 'connect.retry.max-delay'");
            // restarts are off: the first failure failed the job; the stream and the enumerator's
            // discovery may give up at the same moment, each an entry in the exception history
            assertThat(job.failures()).as("failures").isBetween(1, 2);
            assertThat(job.status()).isEqualTo(JobStatus.FAILED);
            assertThat(retries(job.jobId())).isBetween(2L, 4L);
        }
    }

    /**
     * A fast shutdown of the server (its walsender and every session ended) and a start 2 s later, while
     * the job streams, on a server of this test's own: the stream is retried until the server is back and
     * the changelog is exact, with no task failure.
     */
    @Test
    void aServerRestartWhileStreamingIsRetriedExactly(@InjectMiniCluster MiniCluster cluster) throws Exception {
        Assumptions.assumeFalse(PostgresServer.external(), "needs a server of its own to restart");
        PostgresServer server = PostgresServer.startPrivate();
        PostgresDatabase own = server.createDatabase("restart");
        Writers.createTables(own, ROWS);
        ConnectionRetry retry = ConnectionRetry.of(12, Duration.ofMillis(200), Duration.ofSeconds(1));
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.builder(own).slotName("restart")
                        .publicationName("restart").createSlotIfMissing(true).createPublicationIfMissing(true)
                        .statusInterval(Duration.ofSeconds(1)).connectionRetry(retry).build()))
                .includeTables("public.t1", "public.t2")
                .chunkSize(500)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        try (RestartingJob job = RestartingJob.startWithoutRestarts(cluster, source)) {
            JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
            Map<String, Map<String, String>> snapshot = rows(own);
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, snapshot), Duration.ofSeconds(60));
            try (ConcurrentWriters writers = Writers.start(own, 2, 1_500, ROWS)) {
                writers.awaitEnd();
            }
            server.restart(Duration.ofSeconds(2));
            try (ConcurrentWriters writers = Writers.start(own, 2, 1_500, ROWS)) {
                writers.awaitEnd();
            }
            Map<String, Map<String, String>> expected = rows(own);
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, expected), Duration.ofSeconds(90));
            assertThat(changelog.violations()).isEmpty();
            assertThat(job.failures()).as("task failures").isZero();
            assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
            assertThat(retries(job.jobId())).isPositive();
            System.out.printf("server restart: %d retries; ops %s%n", retries(job.jobId()), changelog.ops());
        }
    }

    /**
     * At the connector boundary the source uses (no job needed: that a refused login fails a job once,
     * restarts on, is the restart-strategy test's): one connection attempt, no retry, the login's failure.
     */
    @Test
    void aRefusedLoginIsNotRetried() throws Exception {
        try (CapturedLogs logs = CapturedLogs.start("io.rustcdc.none");
                FaultProxy proxy = FaultProxy.to(db.host(), db.port())) {
            CountedRetries retries = new CountedRetries(source(proxy, ConnectionRetry.defaults(), "not-the-password")
                    .connector());
            assertThatThrownBy(() -> retries.connector().openSession()).isInstanceOfSatisfying(CdcException.class,
                    e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining(LOGIN_REFUSED);
            assertThat(proxy.accepted()).as("connections: one attempt").isEqualTo(1);
            assertThat(retries.count()).isZero();
            assertThat(logs.containing("Connection failure of")).isEmpty();
        }
    }

    /**
     * A role without SELECT on a captured table: the snapshot's read fails with SQLSTATE 42501, a
     * PREREQUISITE naming the table and the remedy, at once: no retry, no second connection.
     */
    @Test
    void aMissingPrivilegeFailsAtOnceWithoutRetries() throws Exception {
        String role = "retry_no_select";
        db.execute("DROP ROLE IF EXISTS " + role, "CREATE ROLE " + role + " LOGIN PASSWORD 'pw-no-select'");
        try (CapturedLogs logs = CapturedLogs.start("io.rustcdc.none");
                FaultProxy proxy = FaultProxy.to(db.host(), db.port())) {
            CountedRetries retries = new CountedRetries(PostgresConnector.create(PostgresTestConfigs.builder(db)
                    .hostname(proxy.host()).port(proxy.port()).username(role).password(Secret.of("pw-no-select"))
                    .connectionRetry(ConnectionRetry.defaults()).build()));
            try (CatalogSession<PostgresPosition, PostgresChunkMark> session = retries.connector().openSession()) {
                TableDescription t1 = session.describe(TableId.of(db.name(), "public", "t1"));
                assertThatThrownBy(() -> session.readChunk(t1, List.of("id"), null, null, e -> { }))
                        .isInstanceOfSatisfying(CdcException.class,
                                e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                        .hasMessageContaining("refused " + role + "@" + proxy.host() + ":" + proxy.port() + "/"
                                + db.name() + " a privilege")
                        .hasMessageContaining("permission denied for table t1")
                        .hasMessageContaining("Grant it to the role");
            }
            assertThat(proxy.accepted()).as("connections: the one session's").isEqualTo(1);
            assertThat(retries.count()).isZero();
            assertThat(logs.containing("Connection failure of")).isEmpty();
        }
    }

    /**
     * A role of CONNECTION LIMIT 1 whose one connection the test holds: the session's login fails with
     * SQLSTATE 53300 (too many connections), which is retried, each retry logged, until the test lets
     * its connection go; then the session opens.
     */
    @Test
    void tooManyConnectionsAreRetriedUntilOneIsFree() throws Exception {
        String role = "retry_one_connection";
        String password = "pw-one-connection";
        db.execute("DROP ROLE IF EXISTS " + role,
                "CREATE ROLE " + role + " LOGIN CONNECTION LIMIT 1 PASSWORD '" + password + "'");
        CountedRetries retries = new CountedRetries(PostgresConnector.create(PostgresTestConfigs.builder(db)
                .username(role).password(Secret.of(password))
                .connectionRetry(ConnectionRetry.of(40, Duration.ofMillis(100), Duration.ofMillis(300))).build()));
        try (CapturedLogs logs = CapturedLogs.start("io.rustcdc.none")) {
            Connection held = db.server().connect(db.name(), role, password);
            CompletableFuture<CatalogSession<PostgresPosition, PostgresChunkMark>> opening;
            try {
                opening = CompletableFuture.supplyAsync(() -> retries.connector().openSession());
                Poll.until("two retries", Duration.ofSeconds(30), () -> retries.count() >= 2);
            } finally {
                held.close();
            }
            try (CatalogSession<PostgresPosition, PostgresChunkMark> session = opening.get(30, TimeUnit.SECONDS)) {
                assertThat(session.currentPosition()).isNotNull();
            }
            assertThat(logs.containing("Connection failure of opening a postgres catalogue session")).isNotEmpty()
                    .allSatisfy(line -> assertThat(line).contains(" WARN ").contains("(SQLSTATE 53300)")
                            .contains("too many connections for role").doesNotContain(password));
        }
    }

    private CdcSource<String, PostgresPosition, PostgresChunkMark> source(FaultProxy proxy, ConnectionRetry retry,
            String password) {
        PostgresSourceConfig.Builder config = PostgresTestConfigs.builder(db).hostname(proxy.host()).port(proxy.port())
                .slotName(slot).publicationName(slot).createSlotIfMissing(true).createPublicationIfMissing(true)
                .statusInterval(Duration.ofSeconds(1)).connectionRetry(retry);
        if (password != null) {
            config.password(Secret.of(password));
        }
        return CdcSource.builder()
                .connector(PostgresConnector.create(config.build()))
                .includeTables("public.t1", "public.t2")
                .chunkSize(500)
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    private JsonChangelog snapshotted(RestartingJob job) throws Exception {
        JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
        Map<String, Map<String, String>> rows = rows();
        changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, rows), Duration.ofSeconds(60));
        return changelog;
    }

    private Map<String, Map<String, String>> rows() throws Exception {
        return rows(db);
    }

    private static Map<String, Map<String, String>> rows(PostgresDatabase db) throws Exception {
        try (Connection c = db.admin()) {
            return TwoTables.rows(c);
        }
    }

    /** The job's connectionRetries counters (readers' and enumerator's), summed. */
    private static long retries(JobID job) {
        long total = 0;
        for (Map.Entry<String, Metric> e : REPORTER.getMetricsByIdentifiers(job).entrySet()) {
            if (e.getKey().endsWith(".connectionRetries") && e.getValue() instanceof Counter) {
                total += ((Counter) e.getValue()).getCount();
            }
        }
        return total;
    }
}
