package io.rustcdc.flink.mysql;

import static io.rustcdc.flink.testing.StreamTestSupport.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.RestartingJob;
import io.rustcdc.flink.testing.RestorableJob;
import io.rustcdc.flink.testing.TwoTables;
import io.rustcdc.flink.testing.net.FaultProxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A position taken on a primary (MariaDB or Oracle MySQL) resumes on its replica, whose binlog has
 * other file names and offsets: by GTIDs, exactly, and a replica that lacks the position's
 * transactions fails loudly. A running job whose primary is replaced by the replica behind its
 * address (a {@link FaultProxy} retargeted) goes on exactly by GTIDs, and fails naming the server
 * with file/offset positions; the replica is promoted in the last test.
 */
@Timeout(240)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MySqlReplicaITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final int FAILOVER_ROWS = 300;
    /** A CDC user created on the primary, so the replica has it too, with the same password. */
    private static final String FAILOVER_USER = "failover_cdc";
    private static final String FAILOVER_PASSWORD = UUID.randomUUID().toString();

    private static MySqlServer primary;
    private static MySqlServer replica;

    /** The servers' identities ({@link MySqlPosition#server()}). */
    private static String primaryServer;
    private static String replicaServer;

    /**
     * The replica names its binlog files as the primary does (as Oracle MySQL's default {@code binlog}
     * does on every server), so a file and offset of one are those of a file of the other too.
     */
    @BeforeAll
    static void servers() {
        primary = MySqlServer.startPrivate();
        String base = java.nio.file.Path.of(primary.value("SELECT @@log_bin_basename")).getFileName().toString();
        replica = MySqlServer.startReplicaOf(primary, 2, "--log-bin=" + base);
        String identity = primary.isMariaDb() ? "SELECT @@server_id" : "SELECT @@server_uuid";
        primaryServer = primary.value(identity);
        replicaServer = replica.value(identity);
    }

    @Test
    void aPositionInsideATransactionOnThePrimaryResumesOnTheReplicaWithEachRowOnce() throws Exception {
        MySqlFeatures.assumeSnapshot(primary);
        MySqlDatabase onPrimary = primary.createDatabase("moved");
        onPrimary.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))");
        MySqlConnector primaryConnector = MySqlConnector.create(MySqlTestConfigs.config(onPrimary));
        MySqlPosition start = prepare(primaryConnector, onPrimary);
        transaction(onPrimary, "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')", "INSERT INTO t VALUES (4, 'd')");
        // a chunk read between the two transactions holds the first and not the second
        MySqlPosition mark;
        try (CatalogSession<MySqlPosition, MySqlPosition> session = primaryConnector.openSession()) {
            mark = session.readChunk(session.describe(TableId.of(onPrimary.name(), onPrimary.name(), "t")),
                    List.of("id"), null, null, e -> { });
        }
        transaction(onPrimary, "UPDATE t SET v = 'e' WHERE id = 1");
        MySqlPosition inside;
        try (ChangeStream<MySqlPosition> stream = primaryConnector.openStream(start, TableFilter.all())) {
            List<StreamRecord<MySqlPosition>> taken = changes(records(stream, 2, Duration.ofSeconds(30)));
            inside = taken.get(1).position();
            assertThat(inside.rowsTaken()).isEqualTo(2);
            assertThat(inside.file()).startsWith(primary.isMariaDb() ? "mariadb-bin." : "mysql-bin.");
            assertThat(inside.server()).isEqualTo(primaryServer).isNotEqualTo(replicaServer);
        }

        replica.catchUpWith(primary);
        MySqlDatabase onReplica = replica.database(onPrimary.name());
        MySqlConnector replicaConnector = MySqlConnector.create(MySqlTestConfigs.config(onReplica));
        try (ChangeStream<MySqlPosition> stream = replicaConnector.openStream(inside, TableFilter.all())) {
            List<StreamRecord<MySqlPosition>> rest = changes(records(stream, 3, Duration.ofSeconds(30)));
            assertThat(rest.stream().map(r -> describe(r.event())))
                    .containsExactly("insert 3|c", "insert 4|d", "update 1|e");
            for (StreamRecord<MySqlPosition> r : rest) {
                assertThat(r.position().server()).as("the replica's own binlog").isEqualTo(replicaServer);
                assertThat(r.position().file()).as("named alike").startsWith(inside.file().replaceAll("\\.\\d+$", "."));
                assertThat(r.position()).as("orders after the primary's position").isGreaterThan(inside);
            }
            // the primary's chunk mark orders against the replica's positions: the handoff survives the move
            assertThat(rest.stream().map(r -> primaryConnector.reflects(mark, r.position())))
                    .containsExactly(true, true, false);
        }
    }

    /**
     * The job is stopped with a savepoint while it snapshots the primary under writers, and restored
     * against the replica: the snapshot finishes there and the stream continues, exactly.
     */
    @Test
    void aJobStoppedOnThePrimaryMidSnapshotContinuesOnTheReplicaExactly(@TempDir Path savepoints) throws Exception {
        MySqlFeatures.assumeSnapshot(primary);
        MySqlDatabase onPrimary = primary.createDatabase("job");
        MySqlWriters.createTables(onPrimary, 6000);
        replica.catchUpWith(primary);
        MySqlDatabase onReplica = replica.database(onPrimary.name());
        JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
        try (ConcurrentWriters writers = MySqlWriters.start(onPrimary, 2, 8_000, 6000)) {
            String savepoint;
            try (RestorableJob job = RestorableJob.start(source(onPrimary), null)) {
                changelog.drainUntil(job.records, () -> changelog.ops().getOrDefault("read", 0) >= 300,
                        Duration.ofSeconds(60));
                savepoint = job.stopWithSavepoint(savepoints);
                job.records.forEach(changelog::apply);
            }
            assertThat(changelog.ops().getOrDefault("read", 0)).as("stopped inside the snapshot").isLessThan(6000 + 2000);
            try (RestorableJob job = RestorableJob.start(source(onReplica), savepoint)) {
                writers.awaitEnd();
                for (int round = 0; round < 2; round++) {
                    replica.catchUpWith(primary);
                    Map<String, String> t1 = MySqlSourceITCase.t1(onPrimary);
                    Map<String, String> t2 = MySqlSourceITCase.t2(onPrimary);
                    changelog.drainUntil(job.records, () -> changelog.rows("t1").equals(t1)
                            && changelog.rows("t2").equals(t2), Duration.ofSeconds(90));
                    if (round == 0) {
                        // every row is read now: these changes come from the stream (the writers may have ended
                        // before the snapshot did); the final rows need the update, which follows the delete
                        onPrimary.execute("INSERT INTO t1 VALUES (100000, 'after', 0), (100001, 'after', 0)",
                                "DELETE FROM t1 WHERE id = 100001", "UPDATE t1 SET n = 1 WHERE id = 100000");
                    }
                }
            }
        }
        assertThat(changelog.violations()).isEmpty();
        assertThat(changelog.ops()).containsKeys("read", "insert", "update", "delete");
    }

    /**
     * A job streaming from a position given as file and offset (no GTIDs), through an address that
     * is moved from the primary to its replica while the job runs: the changelog is exact up to the
     * move, then the job fails naming both servers, instead of reading the replica's binlog file of
     * the same name at the primary's offset.
     */
    @Test
    @Order(1)
    void aFileOffsetJobWhosePrimaryIsReplacedByItsReplicaFailsNamingTheServer(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        MySqlDatabase onPrimary = primary.createDatabase("by_offset");
        onPrimary.execute("CREATE TABLE t1 (id INT PRIMARY KEY, v VARCHAR(40), n INT)",
                "CREATE TABLE t2 (a INT, b INT, v VARCHAR(40), PRIMARY KEY (a, b))");
        createFailoverUser();
        replica.catchUpWith(primary);
        List<String> status = onPrimary.binlogStatus();
        String offset = status.get(0) + ":" + status.get(1);
        JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
        try (FaultProxy proxy = FaultProxy.to(primary.host(), primary.port());
                RestartingJob job = RestartingJob.startWithoutRestarts(cluster,
                        failoverSource(onPrimary, proxy, StartupMode.position(offset)))) {
            try (ConcurrentWriters writers = MySqlWriters.start(onPrimary, 2, 1_000, FAILOVER_ROWS)) {
                writers.awaitEnd();
            }
            Map<String, Map<String, String>> onThePrimary = rows(onPrimary);
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, onThePrimary), Duration.ofSeconds(60));
            replica.catchUpWith(primary);

            proxy.retarget(replica.host(), replica.port());
            assertThat(proxy.cutAll()).isPositive();
            CdcException failure = job.awaitFailure(Duration.ofSeconds(60));
            System.out.println("file/offset failover: " + failure.getMessage());
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.POSITION_LOST);
            String variable = primary.isMariaDb() ? "@@server_id " : "@@server_uuid ";
            assertThat(binlogFiles(replica)).as("the replica has a file of that name").contains(status.get(0));
            assertThat(failure).hasMessageContaining("The position " + status.get(0) + ":")
                    .hasMessageContaining("was read in the binlog of the server with " + variable + primaryServer)
                    .hasMessageContaining("but " + (primary.isMariaDb() ? "MARIADB" : "MYSQL") + " at "
                            + proxy.host() + ":" + proxy.port() + " is the server with " + variable + replicaServer)
                    .hasMessageContaining("Resume by GTIDs");
            job.records.forEach(changelog::apply);
        }
        assertThat(changelog.violations()).isEmpty();
        assertThat(changelog.ops()).containsKeys("insert", "update", "delete").doesNotContainKey("read");
    }

    /**
     * A job reading the primary through an address (a {@link FaultProxy}) is moved mid-stream to the
     * replica, promoted: replication stopped, the address pointed at it, every connection cut, and the
     * writers go on on the replica. The source reconnects by GTIDs (its retry, or the restart strategy)
     * and the changelog is exact across the switch. Last: the replica is a primary afterwards.
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void aJobWhosePrimaryIsReplacedByItsPromotedReplicaMidStreamGoesOnExactlyByGtids(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        MySqlFeatures.assumeSnapshot(primary);
        MySqlDatabase onPrimary = primary.createDatabase("promoted");
        MySqlWriters.createTables(onPrimary, FAILOVER_ROWS);
        createFailoverUser();
        replica.catchUpWith(primary);
        MySqlDatabase onReplica = replica.database(onPrimary.name());
        JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
        long start = System.nanoTime();
        try (FaultProxy proxy = FaultProxy.to(primary.host(), primary.port());
                RestartingJob job = RestartingJob.start(cluster,
                        failoverSource(onPrimary, proxy, StartupMode.initial()))) {
            Map<String, Map<String, String>> snapshot = rows(onPrimary);
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, snapshot), Duration.ofSeconds(60));
            try (ConcurrentWriters writers = MySqlWriters.start(onPrimary, 2, 1_000, FAILOVER_ROWS)) {
                changelog.drainUntil(job.records, () -> changelog.ops().getOrDefault("update", 0) >= 5,
                        Duration.ofSeconds(30));
                writers.awaitEnd();
            }
            // the failover: the replica has what the primary wrote, stops replicating, and takes its address
            replica.catchUpWith(primary);
            execute(replica, "STOP REPLICA");
            proxy.retarget(replica.host(), replica.port());
            int cut = proxy.cutAll();
            try (ConcurrentWriters writers = MySqlWriters.start(onReplica, 2, 1_000, FAILOVER_ROWS)) {
                writers.awaitEnd();
            }
            Map<String, Map<String, String>> expected = rows(onReplica);
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, expected), Duration.ofSeconds(60));
            assertThat(changelog.violations()).isEmpty();
            assertThat(cut).as("links cut at the failover").isPositive();
            assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
            assertThat(rows(onPrimary)).as("the writers after the failover wrote to the replica only")
                    .isNotEqualTo(expected);
            System.out.printf("promoted replica: exact in %d ms, %d failures restarted; ops %s%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), job.failures(), changelog.ops());
        }
    }

    /** A source reading {@code db}'s t1 and t2 through {@code proxy} as {@link #FAILOVER_USER}. */
    private static CdcSource<String, MySqlPosition, MySqlPosition> failoverSource(MySqlDatabase db, FaultProxy proxy,
            StartupMode startup) {
        return CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.builder(db).hostname(proxy.host()).port(proxy.port())
                        .username(FAILOVER_USER).password(Secret.of(FAILOVER_PASSWORD))
                        .connectionRetry(ConnectionRetry.of(10, Duration.ofMillis(200), Duration.ofSeconds(1)))
                        .build()))
                .includeTables(db.name() + ".t1", db.name() + ".t2")
                .startupMode(startup)
                .chunkSize(100)
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    /** On the primary, replicated: the same user and password on both servers, as a failover needs. */
    private static void createFailoverUser() throws Exception {
        execute(primary, "CREATE USER IF NOT EXISTS '" + FAILOVER_USER + "'@'%' IDENTIFIED BY '" + FAILOVER_PASSWORD + "'");
        execute(primary, "GRANT " + MySqlServer.CDC_GRANTS + " ON *.* TO '" + FAILOVER_USER + "'@'%'");
    }

    private static Map<String, Map<String, String>> rows(MySqlDatabase db) throws Exception {
        try (Connection c = db.admin()) {
            return TwoTables.rows(c);
        }
    }

    private static CdcSource<String, MySqlPosition, MySqlPosition> source(MySqlDatabase db) {
        return CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.config(db)))
                .includeTables(db.name() + ".t1", db.name() + ".t2")
                .chunkSize(db.server().isMariaDb() ? 20 : 100) // a chunk on Oracle MySQL also reads the binlog
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    @Test
    void aReplicaWithoutThePositionsTransactionsFailsUntilItHasCaughtUp() throws Exception {
        MySqlDatabase onPrimary = primary.createDatabase("lagging");
        onPrimary.execute("CREATE TABLE t (id INT PRIMARY KEY)");
        replica.catchUpWith(primary);
        MySqlConnector primaryConnector = MySqlConnector.create(MySqlTestConfigs.config(onPrimary));
        MySqlPosition start = prepare(primaryConnector, onPrimary);
        execute(replica, "STOP REPLICA"); // MariaDB 10.5+ and MySQL 8.0.22+ know this name
        MySqlPosition ahead;
        try {
            onPrimary.execute("INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (2)", "INSERT INTO t VALUES (3)");
            try (ChangeStream<MySqlPosition> stream = primaryConnector.openStream(start, TableFilter.all())) {
                // inside the second transaction: after the first, which the replica does not have
                ahead = changes(records(stream, 2, Duration.ofSeconds(30))).get(1).position();
            }
            MySqlConnector replicaConnector = MySqlConnector.create(
                    MySqlTestConfigs.config(replica.database(onPrimary.name())));
            assertThatThrownBy(() -> {
                try (ChangeStream<MySqlPosition> stream = replicaConnector.openStream(ahead, TableFilter.all())) {
                    records(stream, 1, Duration.ofSeconds(30));
                }
            }).isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.CONNECTION))
                    .hasMessageContaining("does not hold the transactions this source resumes after")
                    .hasMessageContaining(ahead.gtidText()).hasMessageContaining("lags behind");
        } finally {
            execute(replica, "START REPLICA");
        }
        replica.catchUpWith(primary);
        MySqlConnector replicaConnector = MySqlConnector.create(MySqlTestConfigs.config(replica.database(onPrimary.name())));
        try (ChangeStream<MySqlPosition> stream = replicaConnector.openStream(ahead, TableFilter.all())) {
            assertThat(changes(records(stream, 1, Duration.ofSeconds(30))).stream().map(r -> describe(r.event())))
                    .containsExactly("insert 3");
        }
    }

    /**
     * A replica with a transaction of its own written before the primary's transaction the position is
     * inside sends that one first: the resume fails loudly instead of skipping the taken rows of the
     * wrong transaction. Oracle MySQL only: on a MariaDB replica a local write in the replicated domain
     * breaks its strict-mode replication, and another domain is sent in an order of its own.
     */
    @Test
    void aReplicaThatSendsAnotherTransactionFirstFailsInsteadOfSkippingItsRows() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(primary.isMariaDb(), "Oracle MySQL's single GTID sequence");
        MySqlDatabase onPrimary = primary.createDatabase("errant");
        onPrimary.execute("CREATE TABLE t (id INT PRIMARY KEY)");
        replica.catchUpWith(primary);
        MySqlConnector primaryConnector = MySqlConnector.create(MySqlTestConfigs.config(onPrimary));
        MySqlPosition start = prepare(primaryConnector, onPrimary);
        String errant;
        MySqlPosition inside;
        execute(replica, "STOP REPLICA");
        try {
            transaction(onPrimary, "INSERT INTO t VALUES (1), (2)");
            try (ChangeStream<MySqlPosition> stream = primaryConnector.openStream(start, TableFilter.all())) {
                inside = changes(records(stream, 1, Duration.ofSeconds(30))).get(0).position();
            }
            String before = replica.value("SELECT @@GLOBAL.gtid_executed");
            execute(replica, "INSERT INTO " + onPrimary.name() + ".t VALUES (100)"); // the replica's own
            errant = replica.value("SELECT GTID_SUBTRACT(@@GLOBAL.gtid_executed, '" + before + "')");
        } finally {
            execute(replica, "START REPLICA");
        }
        try {
            replica.catchUpWith(primary);
            MySqlConnector replicaConnector = MySqlConnector.create(
                    MySqlTestConfigs.config(replica.database(onPrimary.name())));
            assertThat(inside.transactionGtid()).isNotNull();
            assertThatThrownBy(() -> {
                try (ChangeStream<MySqlPosition> stream = replicaConnector.openStream(inside, TableFilter.all())) {
                    records(stream, 1, Duration.ofSeconds(30));
                }
            }).isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("sends transaction " + errant + " first")
                    .hasMessageContaining("inside transaction " + inside.transactionGtid());
        } finally {
            // the primary takes the replica's GTID as an empty transaction: later positions include it, so the
            // replica does not send its own transaction to the other tests
            try (Connection c = primary.admin("");
                    Statement s = c.createStatement()) {
                s.execute("SET GTID_NEXT = '" + errant + "'");
                s.execute("BEGIN");
                s.execute("COMMIT");
                s.execute("SET GTID_NEXT = 'AUTOMATIC'");
            }
            replica.catchUpWith(primary);
        }
    }

    @Test
    void aReplicaThatDoesNotLogWhatItReplicatesIsRefused() throws Exception {
        MySqlFeatures.assumeReplicaLoggingCheck(primary);
        ServerFlavor flavor = primary.isMariaDb() ? ServerFlavor.MARIADB : ServerFlavor.MYSQL;
        String variable = primary.isMariaDb() ? "log_slave_updates" : "log_replica_updates";
        MySqlServer silent = MySqlServer.startReplicaOf(primary, 3, "--" + variable.replace('_', '-') + "=0");
        try (Connection c = silent.connect("", MySqlServer.CDC_USER, silent.cdcPassword())) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> MySqlPrerequisites.check(c, flavor))
                    .isInstanceOf(CdcException.class)
                    .hasMessageContaining(variable + " is 'OFF' on a server that replicates")
                    .hasMessageContaining("read from its primary");
        }
        // a replica that cannot reach its primary now (connecting again and again) still replicates once it can: its
        // check must not depend on its connection (a replica connecting over TLS under load was once taken for none).
        // On Oracle MySQL its receiving thread alone is started, so that its applier's running does not decide it;
        // MariaDB's check is its applying thread's running (Slaves_running), which a connecting replica's is
        try (Connection c = silent.admin("");
                Statement s = c.createStatement()) {
            int unreachable = closedPort();
            if (primary.isMariaDb()) {
                s.execute("STOP SLAVE");
                s.execute("CHANGE MASTER TO MASTER_PORT = " + unreachable + ", MASTER_CONNECT_RETRY = 1");
                s.execute("START SLAVE");
            } else {
                s.execute("STOP REPLICA");
                s.execute("CHANGE REPLICATION SOURCE TO SOURCE_PORT = " + unreachable + ", SOURCE_CONNECT_RETRY = 1");
                s.execute("START REPLICA IO_THREAD");
            }
        }
        try (Connection c = silent.connect("", MySqlServer.CDC_USER, silent.cdcPassword())) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> MySqlPrerequisites.check(c, flavor))
                    .as("a replica whose primary cannot be reached")
                    .isInstanceOf(CdcException.class)
                    .hasMessageContaining(variable + " is 'OFF' on a server that replicates");
        }
        // made a server of its own again, it no longer replicates: not refused
        try (Connection c = silent.admin("");
                Statement s = c.createStatement()) {
            s.execute(primary.isMariaDb() ? "STOP SLAVE" : "STOP REPLICA");
            s.execute(primary.isMariaDb() ? "RESET SLAVE ALL" : "RESET REPLICA ALL");
        }
        try (Connection c = silent.connect("", MySqlServer.CDC_USER, silent.cdcPassword())) {
            org.assertj.core.api.Assertions.assertThatCode(() -> MySqlPrerequisites.check(c, flavor))
                    .as("a server that replicates no more").doesNotThrowAnyException();
        }
        try (Connection c = replica.connect("", MySqlServer.CDC_USER, replica.cdcPassword())) {
            org.assertj.core.api.Assertions.assertThatCode(() -> MySqlPrerequisites.check(c, flavor))
                    .as("a replica that logs what it replicates").doesNotThrowAnyException();
        }
    }

    /** A local TCP port nothing listens on (taken, then released). */
    private static int closedPort() throws java.io.IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static List<StreamRecord<MySqlPosition>> changes(List<StreamRecord<MySqlPosition>> records) {
        return records.stream().filter(r -> r.event() != null).collect(Collectors.toList());
    }

    private static void transaction(MySqlDatabase db, String... statements) throws Exception {
        try (Connection c = db.admin();
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            for (String sql : statements) {
                s.execute(sql);
            }
            c.commit();
        }
    }

    private static List<String> binlogFiles(MySqlServer server) throws Exception {
        List<String> files = new ArrayList<>();
        try (Connection c = server.admin("");
                Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
            while (rs.next()) {
                files.add(rs.getString(1));
            }
        }
        return files;
    }

    private static void execute(MySqlServer server, String sql) throws Exception {
        try (Connection c = server.admin("");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static MySqlPosition prepare(MySqlConnector connector, MySqlDatabase db) {
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            return session.prepareStream(List.of(TableId.of(db.name(), db.name(), "t")), false);
        }
    }

    private static String describe(ChangeEvent e) {
        io.rustcdc.flink.source.model.Row row = e.after();
        List<String> values = new ArrayList<>();
        for (int i = 0; i < row.size(); i++) {
            values.add(String.valueOf(row.get(i)));
        }
        return e.op().wireName() + " " + String.join("|", values);
    }
}
