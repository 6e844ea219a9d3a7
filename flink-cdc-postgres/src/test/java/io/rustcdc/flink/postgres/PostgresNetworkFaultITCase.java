package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.ConnectionOptions;
import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.RestartingJob;
import io.rustcdc.flink.testing.TwoTables;
import io.rustcdc.flink.testing.net.FaultProxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Network faults between the source and PostgreSQL, through a {@link FaultProxy}, under a real
 * restart strategy while writers change the tables: the SQL (snapshot, catalogue) and the
 * replication connection cut during the snapshot and during the stream, a short stall, a
 * replication connection whose upstream is lost (half-open), every link slowed through the snapshot
 * and the stream. Each ends with an exact changelog. The
 * source's own retry is off ({@code connect.max-retries} = 0), so these test Flink's restarts;
 * PostgresConnectionRetryITCase tests the retry.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(240)
class PostgresNetworkFaultITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    /**
     * The startup message of a replication connection: parameter "replication" with value "database",
     * each NUL-terminated (the user "rustcdc_replication" followed by the key "database" looks alike).
     */
    private static final Predicate<String> REPLICATION = o -> o.contains("\0replication\0database\0");
    private static final Predicate<String> SQL = REPLICATION.negate();
    /** Rows per table where the fault comes during the snapshot: enough that it is still running then. */
    private static final int ROWS = 10_000;
    /** Rows per table where the fault comes during the stream: the snapshot before it is only a start. */
    private static final int STREAM_ROWS = 2_000;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(3);
    /** Rows per table, and the rate each way of every link, of the slow-link test: a few seconds of it. */
    private static final int SLOW_ROWS = 300;
    private static final int SLOW_BYTES_PER_SECOND = 32 * 1024;

    private PostgresDatabase db;
    private String slot;

    @BeforeEach
    void setUp(PostgresDatabase db, TestInfo test) {
        this.db = db;
        this.slot = test.getTestMethod().get().getName().toLowerCase();
        // the server notices a lost client within seconds (the half-open case), for this database only
        db.execute("ALTER ROLE " + db.replicationUser() + " IN DATABASE " + db.name() + " SET wal_sender_timeout = '3s'");
    }

    @Test
    void sqlConnectionsCutDuringTheSnapshot(@InjectMiniCluster MiniCluster cluster) throws Exception {
        Writers.createTables(db, ROWS);
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                RestartingJob job = RestartingJob.start(cluster, source(proxy));
                ConcurrentWriters writers = Writers.start(db, 2, 6_000, ROWS)) {
            JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
            changelog.drainUntil(job.records, () -> changelog.ops().getOrDefault("read", 0) >= 1_000,
                    Duration.ofSeconds(60));
            assertThat(changelog.ops().get("read")).as("rows read when the cut came").isLessThan(ROWS);
            assertThat(proxy.cut(SQL)).isPositive();
            awaitExact(job, writers, changelog, 1);
        }
    }

    @Test
    void replicationThenSqlConnectionCutDuringTheStream(@InjectMiniCluster MiniCluster cluster) throws Exception {
        Writers.createTables(db, STREAM_ROWS);
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                RestartingJob job = RestartingJob.start(cluster, source(proxy))) {
            JsonChangelog changelog = snapshotted(job);
            try (ConcurrentWriters writers = Writers.start(db, 2, 6_000, STREAM_ROWS)) {
                awaitLinks(proxy, REPLICATION);
                Thread.sleep(1_000);
                assertThat(proxy.cut(REPLICATION)).isEqualTo(1);
                awaitLinks(proxy, REPLICATION);
                Thread.sleep(1_000);
                assertThat(proxy.cut(SQL)).isPositive();
                awaitExact(job, writers, changelog, 1);
            }
        }
    }

    /** Shorter than every timeout on either side: nothing fails, the held bytes arrive. */
    @Test
    void shortStallDuringTheStream(@InjectMiniCluster MiniCluster cluster) throws Exception {
        Writers.createTables(db, STREAM_ROWS);
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                RestartingJob job = RestartingJob.start(cluster, source(proxy))) {
            JsonChangelog changelog = snapshotted(job);
            try (ConcurrentWriters writers = Writers.start(db, 2, 5_000, STREAM_ROWS)) {
                Thread.sleep(1_000);
                proxy.stallAll();
                Thread.sleep(2_000);
                proxy.resumeAll();
                awaitExact(job, writers, changelog, 0);
            }
        }
    }

    /**
     * A partition longer than the server's wal_sender_timeout and the slot check's read timeout (the
     * least of 30 s and {@code read.timeout}, 3 s here): the server drops the walsender, the close never
     * arrives, and the source does not wait forever: its slot check times out, it fails loudly, and
     * once the partition ends the job resumes exactly. The slot check every second (its least), so that
     * the first check behind the partition comes at once rather than up to the default 10 s later.
     */
    @Test
    void partitionLongerThanTheTimeouts(@InjectMiniCluster MiniCluster cluster) throws Exception {
        Writers.createTables(db, STREAM_ROWS);
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                RestartingJob job = RestartingJob.start(cluster, source(proxy, READ_TIMEOUT, Duration.ofSeconds(1)))) {
            JsonChangelog changelog = snapshotted(job);
            try (ConcurrentWriters writers = Writers.start(db, 2, 4_000, STREAM_ROWS)) {
                Thread.sleep(1_000);
                proxy.stallAll();
                long stalled = System.nanoTime();
                long deadline = stalled + READ_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(45);
                while (job.failures() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(500);
                }
                assertThat(job.failures()).as("failures while partitioned").isPositive();
                System.out.printf("stream partition: failed after %d ms%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stalled));
                // the partition outlasts twice the server's wal_sender_timeout (3 s), so that the server has
                // dropped the walsender behind it, as with the slot check's default interval
                long least = stalled + TimeUnit.SECONDS.toNanos(6) - System.nanoTime();
                if (least > 0) {
                    Thread.sleep(TimeUnit.NANOSECONDS.toMillis(least));
                }
                proxy.resumeAll();
                awaitExact(job, writers, changelog, 1);
            }
        }
    }

    /**
     * The replication connection loses its upstream: the server hears nothing from the source and
     * drops it after wal_sender_timeout; the source fails (the closed socket or the slot check),
     * restarts and resumes exactly.
     */
    @Test
    void halfOpenReplicationConnection(@InjectMiniCluster MiniCluster cluster) throws Exception {
        Writers.createTables(db, STREAM_ROWS);
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                RestartingJob job = RestartingJob.start(cluster, source(proxy))) {
            JsonChangelog changelog = snapshotted(job);
            try (ConcurrentWriters writers = Writers.start(db, 2, 8_000, STREAM_ROWS)) {
                awaitLinks(proxy, REPLICATION);
                Thread.sleep(1_000);
                proxy.links(REPLICATION).forEach(l -> l.drop(FaultProxy.Direction.UPSTREAM));
                awaitExact(job, writers, changelog, 1);
            }
        }
    }

    /**
     * A partition of every connection during the snapshot, longer than {@code read.timeout} (3 s here):
     * the chunk read that waits behind it fails instead of waiting forever, and once the partition ends
     * the job resumes exactly.
     */
    @Test
    void partitionDuringTheSnapshotLongerThanTheReadTimeout(@InjectMiniCluster MiniCluster cluster) throws Exception {
        Writers.createTables(db, ROWS);
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                RestartingJob job = RestartingJob.start(cluster, source(proxy, READ_TIMEOUT));
                ConcurrentWriters writers = Writers.start(db, 2, 4_000, ROWS)) {
            JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
            changelog.drainUntil(job.records, () -> changelog.ops().getOrDefault("read", 0) >= 1_000,
                    Duration.ofSeconds(60));
            assertThat(changelog.ops().get("read")).as("rows read when the partition came").isLessThan(ROWS);
            proxy.stallAll();
            long stalled = System.nanoTime();
            Poll.until("the source to fail behind the partition", Duration.ofSeconds(60), () -> job.failures() > 0);
            System.out.printf("snapshot partition: failed after %d ms%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stalled));
            proxy.resumeAll();
            awaitExact(job, writers, changelog, 1);
        }
    }

    /**
     * Every connection (SQL and replication) slowed to {@value #SLOW_BYTES_PER_SECOND} bytes/s each way
     * from before the job starts: the snapshot under writers, then the stream under more writers, go
     * through it in a few seconds, nothing times out or fails, and the changelog is exact after each.
     */
    @Test
    void slowLinksDuringTheSnapshotAndTheStream(@InjectMiniCluster MiniCluster cluster) throws Exception {
        Writers.createTables(db, SLOW_ROWS);
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port())) {
            proxy.slowAll(SLOW_BYTES_PER_SECOND);
            long start = System.nanoTime();
            try (RestartingJob job = RestartingJob.start(cluster, source(proxy))) {
                JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
                try (ConcurrentWriters writers = Writers.start(db, 2, 1_500, SLOW_ROWS, 20)) {
                    awaitExact(job, writers, changelog, 0);
                }
                try (ConcurrentWriters writers = Writers.start(db, 2, 1_500, SLOW_ROWS, 20)) {
                    awaitExact(job, writers, changelog, 0);
                }
                assertThat(changelog.ops()).containsKeys("read", "insert", "update", "delete");
                assertThat(job.failures()).as("failures").isZero();
            }
            System.out.printf("slow links (%d B/s): exact after %d ms%n", SLOW_BYTES_PER_SECOND,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
    }

    private CdcSource<String, PostgresPosition, PostgresChunkMark> source(FaultProxy proxy) {
        return source(proxy, ConnectionOptions.READ_TIMEOUT.defaultValue());
    }

    private CdcSource<String, PostgresPosition, PostgresChunkMark> source(FaultProxy proxy, Duration readTimeout) {
        return source(proxy, readTimeout, PostgresOptions.SLOT_CHECK_INTERVAL.defaultValue());
    }

    private CdcSource<String, PostgresPosition, PostgresChunkMark> source(FaultProxy proxy, Duration readTimeout,
            Duration slotCheckInterval) {
        return CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.builder(db).hostname(proxy.host())
                        .port(proxy.port()).readTimeout(readTimeout).slotCheckInterval(slotCheckInterval)
                        .slotName(slot).publicationName(slot)
                        .createSlotIfMissing(true)
                        .createPublicationIfMissing(true).statusInterval(Duration.ofSeconds(1))
                        .connectionRetry(ConnectionRetry.none()).build()))
                .includeTables("public.t1", "public.t2")
                .chunkSize(500)
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    private JsonChangelog snapshotted(RestartingJob job) throws Exception {
        JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
        Map<String, Map<String, String>> rows;
        try (Connection c = db.admin()) {
            rows = TwoTables.rows(c);
        }
        changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, rows), Duration.ofSeconds(90));
        return changelog;
    }

    private static void awaitLinks(FaultProxy proxy, Predicate<String> which) {
        Poll.until("a link is open", Duration.ofSeconds(60), () -> !proxy.links(which).isEmpty());
    }

    /** After the writers end: the changelog equals the tables, with no violation; at least {@code failures} restarts. */
    private void awaitExact(RestartingJob job, ConcurrentWriters writers, JsonChangelog changelog, int failures)
            throws Exception {
        writers.awaitEnd();
        Map<String, Map<String, String>> expected;
        try (Connection c = db.admin()) {
            expected = TwoTables.rows(c);
        }
        long start = System.nanoTime();
        changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, expected), Duration.ofSeconds(120));
        System.out.printf("%s: converged %d ms after the writers ended; %d failures restarted; ops %s%n", slot,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), job.failures(), changelog.ops());
        assertThat(changelog.violations()).isEmpty();
        assertThat(job.failures()).isBetween(failures, RestartingJob.ATTEMPTS);
        assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
    }
}
