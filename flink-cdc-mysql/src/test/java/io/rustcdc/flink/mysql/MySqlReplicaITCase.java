package io.rustcdc.flink.mysql;

import static io.rustcdc.flink.testing.StreamTestSupport.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcException;
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
import io.rustcdc.flink.testing.RestorableJob;
import io.rustcdc.flink.testing.TwoTables;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A position taken on a primary (MariaDB or Oracle MySQL) resumes on its replica, whose binlog has
 * other file names and offsets: by GTIDs, exactly, and a replica that lacks the position's
 * transactions fails loudly.
 */
@Timeout(240)
class MySqlReplicaITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static MySqlServer primary;
    private static MySqlServer replica;

    @BeforeAll
    static void servers() {
        primary = MySqlServer.startPrivate();
        replica = MySqlServer.startReplicaOf(primary, 2);
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
        }

        replica.catchUpWith(primary);
        MySqlDatabase onReplica = replica.database(onPrimary.name());
        MySqlConnector replicaConnector = MySqlConnector.create(MySqlTestConfigs.config(onReplica));
        try (ChangeStream<MySqlPosition> stream = replicaConnector.openStream(inside, TableFilter.all())) {
            List<StreamRecord<MySqlPosition>> rest = changes(records(stream, 3, Duration.ofSeconds(30)));
            assertThat(rest.stream().map(r -> describe(r.event())))
                    .containsExactly("insert 3|c", "insert 4|d", "update 1|e");
            for (StreamRecord<MySqlPosition> r : rest) {
                assertThat(r.position().file()).as("the replica's own binlog").startsWith("replica-bin.");
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
        try (Connection c = replica.connect("", MySqlServer.CDC_USER, replica.cdcPassword())) {
            org.assertj.core.api.Assertions.assertThatCode(() -> MySqlPrerequisites.check(c, flavor))
                    .as("a replica that logs what it replicates").doesNotThrowAnyException();
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
