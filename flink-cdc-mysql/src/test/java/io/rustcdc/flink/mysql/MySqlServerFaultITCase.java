package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.binlog.BinlogClients;
import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.retry.RetryingConnector;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.testing.CapturedLogs;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.RestartingJob;
import io.rustcdc.flink.testing.SinkGate;
import io.rustcdc.flink.testing.TwoTables;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Faults of the MySQL/MariaDB server itself, on a server of this class's own (restarted by the
 * tests), with {@code net_write_timeout} = 2 s so that backpressure outlasts it in seconds: the
 * server restarted cleanly while the job streams, and killed while it streams from a file and offset
 * (the source's retry reconnects, no task failure), killed or restarted cleanly while the job
 * snapshots (the retry or the restart strategy resumes it), and a sink blocked for several
 * times the server's {@code net_write_timeout} (the binlog connection survives). Each ends with an
 * exact changelog. On MariaDB and on Oracle MySQL (the module's two executions).
 */
@Timeout(240)
class MySqlServerFaultITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final Duration NET_WRITE_TIMEOUT = Duration.ofSeconds(2);
    private static final int ROWS = 4_000;
    /** The least {@code max_connections} of either server: MariaDB's (Oracle MySQL's is 1). */
    private static final int MIN_MAX_CONNECTIONS = 10;
    private static final String DUMP_THREADS = "SELECT ID FROM information_schema.PROCESSLIST "
            + "WHERE COMMAND LIKE 'Binlog Dump%'";

    private static MySqlServer server;

    private MySqlDatabase db;

    @BeforeAll
    static void startServer() {
        Assumptions.assumeFalse(MySqlServer.external(), "needs a server of its own to restart");
        server = MySqlServer.startPrivate("--net-write-timeout=" + NET_WRITE_TIMEOUT.toSeconds());
    }

    @BeforeEach
    void setUp(TestInfo test) {
        db = server.createDatabase(test.getTestMethod().get().getName());
        MySqlWriters.createTables(db, ROWS);
    }

    @AfterEach
    void tearDown() {
        SinkGate.release();
    }

    /**
     * The sink blocked for 4 times the server's net_write_timeout while 2,000 transactions and 24 MB
     * more are written: the server's binlog dump thread cannot write for all that time, yet the same
     * dump thread streams before and after (the binlog connection sets its own {@code
     * net_write_timeout}), and the changelog is exact with no failure.
     */
    @Test
    void blockedSinkLongerThanNetWriteTimeoutKeepsTheBinlogConnection(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        db.execute("CREATE TABLE wide (id INT PRIMARY KEY, v LONGTEXT)");
        try (RestartingJob job = RestartingJob.start(cluster, source(ConnectionRetry.none()),
                s -> s.map(new SinkGate()))) {
            JsonChangelog changelog = snapshotted(job);
            db.execute("UPDATE t1 SET n = n + 1 WHERE id = 1");
            changelog.drainUntil(job.records, () -> streamed(changelog) >= 1, Duration.ofSeconds(60));
            String dumpThread = dumpThread();

            SinkGate.hold();
            // more events than the stream queues (4096), then more bytes than the sockets buffer
            List<String> writes = new ArrayList<>();
            for (int i = 1; i <= 2_000; i++) {
                writes.add("INSERT INTO t1 VALUES (" + (ROWS + i) + ", 'blocked', " + i + ")");
            }
            for (int i = 1; i <= 24; i++) {
                writes.add("INSERT INTO wide VALUES (" + i + ", REPEAT('x', 1000000))");
            }
            db.execute(writes.toArray(new String[0]));
            Thread.sleep(NET_WRITE_TIMEOUT.multipliedBy(4).toMillis());
            assertThat(db.queryColumn(DUMP_THREADS)).as("the binlog dump threads after the sink was blocked 4 times "
                    + "net_write_timeout (" + NET_WRITE_TIMEOUT + ")").containsExactly(dumpThread);
            SinkGate.release();

            db.execute("UPDATE t1 SET n = -n WHERE id % 7 = 0", "DELETE FROM t1 WHERE id % 11 = 0");
            Map<String, Map<String, String>> expected = rows();
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, expected), Duration.ofSeconds(90));
            assertThat(changelog.violations()).isEmpty();
            assertThat(job.failures()).as("failures").isZero();
            assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
            assertThat(db.queryColumn(DUMP_THREADS)).containsExactly(dumpThread);
            System.out.println("backpressure: net_write_timeout " + NET_WRITE_TIMEOUT + ", binlog connection's "
                    + BinlogClients.NET_WRITE_TIMEOUT + "; ops " + changelog.ops());
        }
    }

    /**
     * A clean shutdown while the job streams (the server ends the binlog connection and every session),
     * 2 s down, then a start: the source's retry reconnects once the server is back, with no task
     * failure, and the changelog is exact.
     */
    @Test
    void aServerRestartWhileStreamingIsRetriedExactly(@InjectMiniCluster MiniCluster cluster) throws Exception {
        ConnectionRetry retry = ConnectionRetry.of(30, Duration.ofMillis(200), Duration.ofSeconds(1));
        try (RestartingJob job = RestartingJob.startWithoutRestarts(cluster, source(retry))) {
            JsonChangelog changelog = snapshotted(job);
            try (ConcurrentWriters writers = MySqlWriters.start(db, 2, 1_500, ROWS)) {
                writers.awaitEnd();
            }
            changelog.drainUntil(job.records, () -> streamed(changelog) >= 1, Duration.ofSeconds(60));
            server.restart(Duration.ofSeconds(2), false);
            try (ConcurrentWriters writers = MySqlWriters.start(db, 2, 1_500, ROWS)) {
                writers.awaitEnd();
            }
            Map<String, Map<String, String>> expected = rows();
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, expected), Duration.ofSeconds(90));
            assertThat(changelog.violations()).isEmpty();
            assertThat(job.failures()).as("task failures").isZero();
            assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
            System.out.println("server restart while streaming: ops " + changelog.ops());
        }
    }

    /**
     * The server killed (SIGKILL) while the job streams from a position given as file and offset (no
     * GTIDs): the source's retry reopens the binlog at the same file and offset on the restarted server,
     * the same server by its identity ({@link MySqlPosition#server()}; its binlog goes on in a new file),
     * with no task failure, and the changelog is exact.
     */
    @Test
    void aServerKilledWhileStreamingByFileAndOffsetIsRetriedExactly(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        db.execute("DELETE FROM t1", "DELETE FROM t2"); // the stream starts after them: its changelog starts empty
        List<String> status = db.binlogStatus();
        ConnectionRetry retry = ConnectionRetry.of(30, Duration.ofMillis(200), Duration.ofSeconds(1));
        try (RestartingJob job = RestartingJob.startWithoutRestarts(cluster,
                source(retry, StartupMode.position(status.get(0) + ":" + status.get(1))))) {
            JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
            try (ConcurrentWriters writers = MySqlWriters.start(db, 2, 800, ROWS)) {
                writers.awaitEnd();
            }
            Map<String, Map<String, String>> before = rows();
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, before), Duration.ofSeconds(60));
            server.restart(Duration.ofSeconds(1), true);
            try (ConcurrentWriters writers = MySqlWriters.start(db, 2, 800, ROWS)) {
                writers.awaitEnd();
            }
            Map<String, Map<String, String>> expected = rows();
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, expected), Duration.ofSeconds(90));
            assertThat(changelog.violations()).isEmpty();
            assertThat(job.failures()).as("task failures").isZero();
            assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
            assertThat(changelog.ops()).doesNotContainKey("read");
            System.out.println("server killed while streaming from " + status + ": ops " + changelog.ops());
        }
    }

    /**
     * The server killed (SIGKILL: it recovers its binlog and tables at the next start) while the job is
     * in the middle of its snapshot, with writers having changed the tables under it: the chunk read
     * that was running fails, the restart strategy and the retry take the job on from its checkpoint,
     * and the changelog is exact.
     */
    @Test
    void aServerKilledWhileSnapshottingResumesExactly(@InjectMiniCluster MiniCluster cluster) throws Exception {
        restartWhileSnapshotting(cluster, true);
    }

    /** The same with a clean shutdown (SIGTERM: the server ends the chunk read's session and writes its tables out). */
    @Test
    void aServerRestartedCleanlyWhileSnapshottingResumesExactly(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        restartWhileSnapshotting(cluster, false);
    }

    private void restartWhileSnapshotting(MiniCluster cluster, boolean kill) throws Exception {
        ConnectionRetry retry = ConnectionRetry.of(30, Duration.ofMillis(200), Duration.ofSeconds(1));
        try (RestartingJob job = RestartingJob.start(cluster, source(retry), s -> s.map(new SinkGate()))) {
            JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
            try (ConcurrentWriters writers = MySqlWriters.start(db, 2, 3_000, ROWS)) {
                changelog.drainUntil(job.records, () -> changelog.ops().getOrDefault("read", 0) >= 1_000,
                        Duration.ofSeconds(60));
                SinkGate.hold(); // the reader stops in the middle of the snapshot
                writers.awaitEnd();
            }
            assertThat(changelog.ops().get("read")).as("rows read when the server was killed").isLessThan(ROWS);
            server.restart(Duration.ofSeconds(1), kill);
            SinkGate.release();
            try (ConcurrentWriters writers = MySqlWriters.start(db, 2, 1_500, ROWS)) {
                writers.awaitEnd();
            }
            Map<String, Map<String, String>> expected = rows();
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, expected), Duration.ofSeconds(120));
            assertThat(changelog.violations()).isEmpty();
            assertThat(job.failures()).isBetween(0, RestartingJob.ATTEMPTS);
            assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
            System.out.println("server " + (kill ? "killed" : "restarted cleanly") + " while snapshotting: "
                    + job.failures() + " failures; ops "
                    + changelog.ops());
        }
    }

    /**
     * The server full ({@code max_connections} lowered below the connections the test holds open): a
     * catalogue session's login fails with ER_CON_COUNT_ERROR (1040, "Too many connections"), which is
     * retried, each retry logged, until the test raises the limit again; then the session opens. At the
     * connector boundary the source uses (no job needed).
     */
    @Test
    void tooManyConnectionsAreRetriedUntilTheServerHasRoom() throws Exception {
        SimpleCounter retries = new SimpleCounter();
        CdcConnector<MySqlPosition, MySqlPosition> connector = RetryingConnector.wrap(MySqlConnector.create(
                MySqlTestConfigs.builder(db).connectionRetry(ConnectionRetry.of(40, Duration.ofMillis(100),
                        Duration.ofMillis(300))).build()), new UnregisteredMetricsGroup() {
                            @Override
                            public Counter counter(String name) {
                                return retries;
                            }
                        });
        List<Connection> held = new ArrayList<>();
        try (CapturedLogs logs = CapturedLogs.start("io.rustcdc.none");
                Connection admin = server.admin("");
                Statement s = admin.createStatement()) {
            String limit = db.queryValue("SELECT @@GLOBAL.max_connections");
            // MariaDB's least max_connections is 10, Oracle MySQL's 1, and each lets one more in (an admin's):
            // hold more than that open first
            for (int i = 0; i < MIN_MAX_CONNECTIONS + 1; i++) {
                held.add(server.admin(""));
            }
            CompletableFuture<CatalogSession<MySqlPosition, MySqlPosition>> opening;
            s.execute("SET GLOBAL max_connections = 1");
            try {
                opening = CompletableFuture.supplyAsync(connector::openSession);
                Poll.until("two retries", Duration.ofSeconds(30), () -> retries.getCount() >= 2);
            } finally {
                s.execute("SET GLOBAL max_connections = " + limit);
                for (Connection c : held) {
                    c.close();
                }
            }
            try (CatalogSession<MySqlPosition, MySqlPosition> session = opening.get(30, TimeUnit.SECONDS)) {
                assertThat(session.currentPosition()).isNotNull();
            }
            List<String> warned = logs.containing("Connection failure of opening a " + connector.name()
                    + " catalogue session");
            warned.stream().limit(1).forEach(System.out::println);
            assertThat(warned).hasSizeGreaterThanOrEqualTo(2).allSatisfy(line -> assertThat(line).contains(" WARN ")
                    .contains("Too many connections").contains(":" + server.port() + " as '")
                    .contains("no room for another connection ('max_connections'")
                    .doesNotContain(server.cdcPassword()));
        }
    }

    private CdcSource<String, MySqlPosition, MySqlPosition> source(ConnectionRetry retry) {
        return source(retry, StartupMode.initial());
    }

    private CdcSource<String, MySqlPosition, MySqlPosition> source(ConnectionRetry retry, StartupMode startup) {
        return CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.builder(db).connectionRetry(retry).build()))
                .includeTables(db.name() + ".t1", db.name() + ".t2")
                .startupMode(startup)
                .chunkSize(500)
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    /** The id of the one binlog dump thread of this class's server (the source's), once there is one. */
    private String dumpThread() {
        Poll.until("a binlog dump thread", Duration.ofSeconds(30), () -> db.queryColumn(DUMP_THREADS).size() == 1);
        return db.queryValue(DUMP_THREADS);
    }

    /** Changes the stream delivered (not snapshot reads). */
    private static int streamed(JsonChangelog changelog) {
        Map<String, Integer> ops = changelog.ops();
        return ops.getOrDefault("insert", 0) + ops.getOrDefault("update", 0) + ops.getOrDefault("delete", 0);
    }

    private JsonChangelog snapshotted(RestartingJob job) throws Exception {
        JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
        Map<String, Map<String, String>> rows = rows();
        changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, rows), Duration.ofSeconds(60));
        return changelog;
    }

    private Map<String, Map<String, String>> rows() throws Exception {
        try (Connection c = db.admin()) {
            return TwoTables.rows(c);
        }
    }
}
