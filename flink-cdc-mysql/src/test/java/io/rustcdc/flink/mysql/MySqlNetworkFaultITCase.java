package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
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
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Network faults between the source and MySQL/MariaDB, through a {@link FaultProxy}, under a real
 * restart strategy while writers change the tables: every connection (JDBC and binlog) cut during
 * the snapshot and during the stream, a short stall, a stall longer than {@code binlog.read-timeout}
 * and a half-open binlog connection (either way) during the stream, and every link slowed through the snapshot
 * and the stream. Each ends with an exact changelog. The
 * source's own retry is off ({@code connect.max-retries} = 0), so these test Flink's restarts;
 * MySqlConnectionRetryITCase tests the retry.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(240)
class MySqlNetworkFaultITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    /** Rows per table where the fault comes during the snapshot: enough that it is still running then. */
    private static final int ROWS = 20_000;
    /** Rows per table where the fault comes during the stream: the snapshot before it is only a start. */
    private static final int STREAM_ROWS = 2_000;
    /** Rows per table of the tests that only need a stream to fault. */
    private static final int SMALL_ROWS = 300;
    /** The rate each way of every link in the slow-link test: a few seconds of it. */
    private static final int SLOW_BYTES_PER_SECOND = 32 * 1024;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(3);

    private MySqlDatabase db;

    @BeforeEach
    void setUp(MySqlDatabase db) {
        this.db = db;
    }

    @Test
    void everyConnectionCutDuringTheSnapshot(@InjectMiniCluster MiniCluster cluster) throws Exception {
        MySqlWriters.createTables(db, ROWS);
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                RestartingJob job = RestartingJob.start(cluster, source(proxy));
                ConcurrentWriters writers = MySqlWriters.start(db, 2, 6_000, ROWS)) {
            JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
            changelog.drainUntil(job.records, () -> changelog.ops().getOrDefault("read", 0) >= 1_000,
                    Duration.ofSeconds(60));
            assertThat(changelog.ops().get("read")).as("rows read when the cut came").isLessThan(ROWS);
            assertThat(proxy.cutAll()).isPositive();
            awaitExact(job, writers, changelog, 1, "snapshot cut");
        }
    }

    @Test
    void everyConnectionCutTwiceDuringTheStream(@InjectMiniCluster MiniCluster cluster) throws Exception {
        MySqlWriters.createTables(db, STREAM_ROWS);
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                RestartingJob job = RestartingJob.start(cluster, source(proxy))) {
            JsonChangelog changelog = snapshotted(job);
            try (ConcurrentWriters writers = MySqlWriters.start(db, 2, 6_000, STREAM_ROWS)) {
                for (int cut = 0; cut < 2; cut++) {
                    Poll.until("a link is open", Duration.ofSeconds(60), () -> !proxy.links(o -> true).isEmpty());
                    Thread.sleep(1_500);
                    assertThat(proxy.cutAll()).isPositive();
                }
                awaitExact(job, writers, changelog, 1, "stream cut");
            }
        }
    }

    /** Shorter than every timeout on either side: nothing fails, the held bytes arrive. */
    @Test
    void shortStallDuringTheStream(@InjectMiniCluster MiniCluster cluster) throws Exception {
        MySqlWriters.createTables(db, STREAM_ROWS);
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                RestartingJob job = RestartingJob.start(cluster, source(proxy))) {
            JsonChangelog changelog = snapshotted(job);
            try (ConcurrentWriters writers = MySqlWriters.start(db, 2, 5_000, STREAM_ROWS)) {
                Thread.sleep(1_000);
                proxy.stallAll();
                Thread.sleep(2_000);
                proxy.resumeAll();
                awaitExact(job, writers, changelog, 0, "stall");
            }
        }
    }

    /**
     * A partition of every connection during the snapshot, longer than {@code read.timeout} (3 s here):
     * the read that waits behind it fails instead of waiting forever (on Oracle MySQL it may be a chunk's
     * binlog backfill, after {@code binlog.read-timeout}, 3 s here too), and once the partition ends the
     * job resumes exactly.
     */
    @Test
    void partitionDuringTheSnapshotLongerThanTheReadTimeout(@InjectMiniCluster MiniCluster cluster) throws Exception {
        MySqlWriters.createTables(db, ROWS);
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                RestartingJob job = RestartingJob.start(cluster, source(proxy, READ_TIMEOUT));
                ConcurrentWriters writers = MySqlWriters.start(db, 2, 4_000, ROWS)) {
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
            awaitExact(job, writers, changelog, 1, "snapshot partition");
        }
    }

    /**
     * During the stream, first the binlog connection half-open the other way: what the client sends is
     * lost, what the server sends arrives. The binlog client sends nothing after its dump request, so
     * the stream goes on exactly on that connection, with no failure (the proxy still acknowledges the
     * server's bytes; over a real network the lost direction carries the client's TCP acknowledgements
     * too, and the server's TCP stops sending new bytes at its first retransmission timeout: the client
     * then hears nothing, which is what comes next). Then what the server sends on it is lost as well:
     * the client's side stays open and hears nothing, not even the heartbeats. Then every connection
     * stalled, as in a partition, for longer than {@code binlog.read-timeout}. Each of these two times
     * the stream fails within about that timeout (3 s here) instead of waiting, and the job resumes
     * exactly on new connections (after the stall, once it ends).
     */
    @Test
    void halfOpenBinlogConnectionThenAStallLongerThanTheBinlogReadTimeout(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        MySqlWriters.createTables(db, SMALL_ROWS);
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                RestartingJob job = RestartingJob.start(cluster, source(proxy, READ_TIMEOUT))) {
            JsonChangelog changelog = snapshotted(job);
            FaultProxy.Link binlog;
            try (ConcurrentWriters writers = MySqlWriters.start(db, 2, 1_500, SMALL_ROWS)) {
                changelog.drainUntil(job.records, () -> changelog.ops().containsKey("update"), Duration.ofSeconds(30));
                binlog = busiestDownstream(proxy);
                binlog.drop(FaultProxy.Direction.UPSTREAM);
                long sent = binlog.forwarded(FaultProxy.Direction.DOWNSTREAM);
                // a change surely after the drop (the writers may be done by now), outside the writers' keys
                db.execute("INSERT INTO t1 VALUES (10000000, 'after the drop', 0)");
                awaitExact(job, writers, changelog, 0, "binlog connection half-open upstream");
                assertThat(binlog.forwarded(FaultProxy.Direction.DOWNSTREAM)).as("the binlog after the drop")
                        .isGreaterThan(sent);
            }
            assertThat(job.failures()).as("failures with the client's bytes lost").isZero();
            assertThat(binlog.isClosed()).as("the same binlog connection streamed").isFalse();
            try (ConcurrentWriters writers = MySqlWriters.start(db, 2, 2_500, SMALL_ROWS)) {
                int seen = changes(changelog);
                changelog.drainUntil(job.records, () -> changes(changelog) > seen, Duration.ofSeconds(30));
                binlog.drop(FaultProxy.Direction.DOWNSTREAM);
                awaitFailureWithin(job, 1, "half-open binlog connection");
                awaitExact(job, writers, changelog, 1, "half-open binlog connection");
            }
            Poll.until("the source to close the half-open connection", Duration.ofSeconds(10), binlog::isClosed);
            try (ConcurrentWriters writers = MySqlWriters.start(db, 2, 1_500, SMALL_ROWS)) {
                Thread.sleep(500);
                proxy.stallAll();
                awaitFailureWithin(job, job.failures() + 1, "stream stall");
                proxy.resumeAll();
                awaitExact(job, writers, changelog, 2, "stream stall");
            }
        }
    }

    /**
     * Every connection (JDBC and binlog) slowed to {@value #SLOW_BYTES_PER_SECOND} bytes/s each way from
     * before the job starts: the snapshot under writers, then the stream under more writers, go through
     * it in a few seconds, nothing times out or fails, and the changelog is exact after each.
     */
    @Test
    void slowLinksDuringTheSnapshotAndTheStream(@InjectMiniCluster MiniCluster cluster) throws Exception {
        // the proxy slows bytes, whichever server sends them (passed on Oracle MySQL too): MariaDB only, to keep
        // the suite's time
        Assumptions.assumeTrue(db.server().isMariaDb(), "flavor-independent: run on MariaDB");
        MySqlWriters.createTables(db, SMALL_ROWS);
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port())) {
            proxy.slowAll(SLOW_BYTES_PER_SECOND);
            long start = System.nanoTime();
            try (RestartingJob job = RestartingJob.start(cluster, source(proxy))) {
                JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
                try (ConcurrentWriters writers = MySqlWriters.start(db, 2, 1_500, SMALL_ROWS, 20)) {
                    awaitExact(job, writers, changelog, 0, "slow links, snapshot");
                }
                try (ConcurrentWriters writers = MySqlWriters.start(db, 2, 1_500, SMALL_ROWS, 20)) {
                    awaitExact(job, writers, changelog, 0, "slow links, stream");
                }
                assertThat(changelog.ops()).containsKeys("read", "insert", "update", "delete");
                assertThat(job.failures()).as("failures").isZero();
            }
            System.out.printf("slow links (%d B/s): exact after %d ms%n", SLOW_BYTES_PER_SECOND,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
    }

    /**
     * The open link whose server sent the most while 100 kB of random text was written to a table the source does not
     * capture: the binlog connection's, which carries every table's rows (call it once the stream delivers the
     * writes, so that its link is open). The writers' own changes may have ended by then.
     */
    private FaultProxy.Link busiestDownstream(FaultProxy proxy) throws InterruptedException {
        Map<FaultProxy.Link, Long> before = new HashMap<>();
        proxy.links(o -> true).forEach(l -> before.put(l, l.forwarded(FaultProxy.Direction.DOWNSTREAM)));
        db.execute("CREATE TABLE IF NOT EXISTS not_captured (id INT AUTO_INCREMENT PRIMARY KEY, b LONGTEXT)");
        java.util.Random random = new java.util.Random();
        for (int i = 0; i < 5; i++) {
            char[] text = new char[20_000]; // random letters: a compressed binlog would shrink repeated ones to nothing
            for (int c = 0; c < text.length; c++) {
                text[c] = (char) ('a' + random.nextInt(26));
            }
            db.execute("INSERT INTO not_captured (b) VALUES ('" + new String(text) + "')");
        }
        Thread.sleep(1_000);
        return before.keySet().stream().filter(l -> !l.isClosed())
                .max(Comparator.comparingLong(l -> l.forwarded(FaultProxy.Direction.DOWNSTREAM) - before.get(l)))
                .orElseThrow(() -> new AssertionError("no link open"));
    }

    private static int changes(JsonChangelog changelog) {
        return changelog.ops().values().stream().mapToInt(Integer::intValue).sum();
    }

    /** The job has {@code failures} failures within a few binlog read timeouts; the time is printed. */
    private static void awaitFailureWithin(RestartingJob job, int failures, String fault) {
        long start = System.nanoTime();
        Duration bound = READ_TIMEOUT.multipliedBy(5);
        Poll.until("the source to fail behind the " + fault + " within " + bound, bound,
                () -> job.failures() >= failures);
        System.out.printf("%s: failed after %d ms (binlog.read-timeout %s)%n", fault,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), READ_TIMEOUT);
    }

    private CdcSource<String, MySqlPosition, MySqlPosition> source(FaultProxy proxy) {
        return source(proxy, ConnectionOptions.READ_TIMEOUT.defaultValue());
    }

    private CdcSource<String, MySqlPosition, MySqlPosition> source(FaultProxy proxy, Duration readTimeout) {
        return CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.builder(db).hostname(proxy.host())
                        .port(proxy.port()).readTimeout(readTimeout).connectionRetry(ConnectionRetry.none())
                        // a chunk's binlog backfill (Oracle MySQL) waits behind the partition as long as its reads
                        .binlogReadTimeout(readTimeout.compareTo(Duration.ofSeconds(30)) < 0 ? readTimeout
                                : Duration.ofSeconds(30)).build()))
                .includeTables(db.name() + ".t1", db.name() + ".t2")
                .chunkSize(500)
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    private JsonChangelog snapshotted(RestartingJob job) throws Exception {
        JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
        Map<String, Map<String, String>> rows = rows();
        changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, rows), Duration.ofSeconds(90));
        return changelog;
    }

    private Map<String, Map<String, String>> rows() throws Exception {
        try (Connection c = db.admin()) {
            return TwoTables.rows(c);
        }
    }

    /** After the writers end: the changelog equals the tables, with no violation; at least {@code failures} restarts. */
    private void awaitExact(RestartingJob job, ConcurrentWriters writers, JsonChangelog changelog, int failures,
            String fault) throws Exception {
        writers.awaitEnd();
        Map<String, Map<String, String>> expected = rows();
        long start = System.nanoTime();
        changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, expected), Duration.ofSeconds(120));
        System.out.printf("%s: converged %d ms after the writers ended; %d failures restarted; ops %s%n", fault,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), job.failures(), changelog.ops());
        assertThat(changelog.violations()).isEmpty();
        assertThat(job.failures()).isBetween(failures, RestartingJob.ATTEMPTS);
        assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
    }
}
