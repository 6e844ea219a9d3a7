package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.postgres.testing.SlotChecks;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.testing.CapturedLogs;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.RestartingJob;
import io.rustcdc.flink.testing.StreamTestSupport;
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
 * attempt), too many connections are retried until one is free; a walsender terminated twice ends in
 * an exact changelog (server restarts: PostgresServerRestartITCase). What a
 * retry cannot cure fails at once or after the one reopen that finds it: a slot dropped or invalidated
 * while streaming, a publication dropped, REPLICATION revoked, a chunk read over the role's
 * statement_timeout.
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

    /**
     * The stream's walsender terminated with pg_terminate_backend (SQLSTATE 57P01, what an operator or a
     * failover tool does) twice while writers run: each is retried inside the source, the stream reopened
     * after its last record, and the changelog is exact with no task failure.
     */
    @Test
    void aTerminatedWalsenderIsRetriedExactly(@InjectMiniCluster MiniCluster cluster) throws Exception {
        ConnectionRetry retry = ConnectionRetry.of(12, Duration.ofMillis(200), Duration.ofSeconds(1));
        try (CapturedLogs logs = CapturedLogs.start("io.rustcdc.none");
                RestartingJob job = RestartingJob.startWithoutRestarts(cluster,
                        source(db.host(), db.port(), retry, null))) {
            JsonChangelog changelog = snapshotted(job);
            try (ConcurrentWriters writers = Writers.start(db, 2, 4_000, ROWS)) {
                for (int i = 0; i < 2; i++) {
                    String walsender = activeWalsender();
                    Thread.sleep(800);
                    assertThat(db.queryValue("SELECT pg_terminate_backend(" + walsender + ")")).isEqualTo("t");
                    Poll.until("a new walsender", Duration.ofSeconds(60), () -> {
                        String now = activeWalsenderOrNull();
                        return now != null && !now.equals(walsender);
                    });
                }
                writers.awaitEnd();
                Map<String, Map<String, String>> expected = rows();
                changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, expected), Duration.ofSeconds(90));
            }
            assertThat(changelog.violations()).isEmpty();
            assertThat(job.failures()).as("task failures").isZero();
            assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
            List<String> warned = logs.containing("Connection failure of the postgres change stream at ");
            warned.forEach(System.out::println);
            System.out.printf("%s: %d retries; ops %s%n", slot, retries(job.jobId()), changelog.ops());
            assertThat(retries(job.jobId())).as("retries: one per terminated walsender").isGreaterThanOrEqualTo(2);
            assertThat(warned).hasSizeGreaterThanOrEqualTo(2).allSatisfy(line -> assertThat(line).contains(" WARN ")
                    .contains("The replication stream of slot '" + slot + "' at ")
                    .doesNotContain(db.replicationPassword()));
            assertThat(logs.containing("Reopened the postgres change stream at ")).hasSizeGreaterThanOrEqualTo(2);
        }
    }

    /**
     * A slot dropped while the source streams it (its walsender terminated first: an active slot cannot be
     * dropped) fails the stream with POSITION_LOST naming the slot and the remedy: at most the one reopen
     * that finds the slot gone, no retry loop.
     */
    @Test
    void aSlotDroppedWhileStreamingFailsOnceNamingTheSlot() throws Exception {
        CountedRetries retries = new CountedRetries(PostgresConnector.create(streaming(db.replicationUser(),
                db.replicationPassword(), ConnectionRetry.of(5, Duration.ofSeconds(1), Duration.ofSeconds(2)))));
        PostgresPosition start = prepare();
        try (CapturedLogs logs = CapturedLogs.start("io.rustcdc.none");
                ChangeStream<PostgresPosition> stream = retries.connector().openStream(start, TableFilter.all())) {
            db.execute("UPDATE t1 SET n = n + 1 WHERE id = 1");
            StreamTestSupport.events(stream, 1);
            Poll.until("slot " + slot + " dropped", Duration.ofSeconds(30), () -> {
                db.execute("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '"
                        + slot + "' AND active_pid IS NOT NULL");
                try {
                    db.execute("SELECT pg_drop_replication_slot('" + slot + "')");
                } catch (RuntimeException stillActive) {
                    return false;
                }
                return true;
            });
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(60));
            System.out.println("slot dropped: " + failure + "; retries " + retries.count());
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.POSITION_LOST);
            assertThat(failure).hasMessageContaining("Replication slot '" + slot + "' no longer exists in database "
                    + db.name()).hasMessageContaining("Recreate the slot and restart the job without its state");
            assertThat(retries.count()).as("retries: at most the reopen that found the slot gone").isLessThanOrEqualTo(1);
            assertThat(logs.containing("Connection failure of")).hasSizeLessThanOrEqualTo(1);
        }
    }

    /**
     * A slot PostgreSQL invalidates while the source streams it (max_slot_wal_keep_size exceeded: the
     * checkpointer ends its walsender and marks it lost) fails the stream with POSITION_LOST naming the
     * slot and the cause, whether the slot check or the reopen sees it first: at most one reopen.
     */
    @Test
    void aSlotInvalidatedWhileStreamingFailsOnceNamingTheCause() throws Exception {
        db.execute("DROP TABLE IF EXISTS filler", "CREATE TABLE filler (id int PRIMARY KEY, note text)");
        CountedRetries retries = new CountedRetries(PostgresConnector.create(streaming(db.replicationUser(),
                db.replicationPassword(), ConnectionRetry.of(5, Duration.ofSeconds(1), Duration.ofSeconds(2)))));
        PostgresPosition start = prepare();
        try (CapturedLogs logs = CapturedLogs.start("io.rustcdc.none");
                ChangeStream<PostgresPosition> stream = retries.connector().openStream(start, TableFilter.all())) {
            db.execute("UPDATE t1 SET n = n + 1 WHERE id = 1");
            StreamTestSupport.events(stream, 1);
            try {
                db.execute("ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'", "SELECT pg_reload_conf()");
                // WAL of a table the publication does not carry: the slot falls behind without changes to send
                Poll.until("PostgreSQL to invalidate slot " + slot, Duration.ofSeconds(60), () -> {
                    db.execute("INSERT INTO filler SELECT g, repeat('x', 1000) FROM generate_series(1, 2000) g "
                                    + "ON CONFLICT (id) DO UPDATE SET note = excluded.note || 'y'",
                            "SELECT pg_switch_wal()", "CHECKPOINT");
                    return "lost".equals(db.queryValue("SELECT wal_status FROM pg_replication_slots WHERE "
                            + "slot_name = '" + slot + "'"));
                });
            } finally {
                db.execute("ALTER SYSTEM RESET max_slot_wal_keep_size", "SELECT pg_reload_conf()");
            }
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(60));
            System.out.println("slot invalidated: " + failure + "; retries " + retries.count());
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.POSITION_LOST);
            assertThat(failure).hasMessageContaining("Replication slot '" + slot + "' was invalidated (wal_status = "
                    + "lost)").hasMessageContaining("max_slot_wal_keep_size");
            assertThat(retries.count()).as("retries: at most the reopen that found the slot lost").isLessThanOrEqualTo(1);
            assertThat(logs.containing("Connection failure of")).hasSizeLessThanOrEqualTo(1);
        } finally {
            dropSlot();
        }
    }

    /**
     * The publication dropped while the source streams (and a captured table changed after it): pgoutput
     * fails the stream with SQLSTATE 42704, a final PREREQUISITE naming the publication and what to do,
     * with no retry.
     */
    @Test
    void aPublicationDroppedWhileStreamingFailsAtOnceNamingIt() throws Exception {
        CountedRetries retries = new CountedRetries(PostgresConnector.create(streaming(db.replicationUser(),
                db.replicationPassword(), ConnectionRetry.defaults())));
        PostgresPosition start = prepare();
        try (CapturedLogs logs = CapturedLogs.start("io.rustcdc.none");
                ChangeStream<PostgresPosition> stream = retries.connector().openStream(start, TableFilter.all())) {
            db.execute("UPDATE t1 SET n = n + 1 WHERE id = 1");
            StreamTestSupport.events(stream, 1);
            db.execute("DROP PUBLICATION " + slot, "UPDATE t1 SET n = n + 1 WHERE id = 2");
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(60));
            System.out.println("publication dropped: " + failure);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
            assertThat(failure).hasMessageContaining("Publication '" + slot + "' was dropped while slot '" + slot
                            + "' streamed it").hasMessageContaining("SQLSTATE 42704")
                    .hasMessageContaining("Create the publication, then restart the job without its state with a "
                            + "new slot");
            assertThat(retries.count()).isZero();
            assertThat(logs.containing("Connection failure of")).isEmpty();
        } finally {
            dropSlot();
        }
    }

    /**
     * The publication altered while the source streams to publish no updates: pgoutput would leave the
     * updates out without a word; the slot check finds it and fails the stream, a final PREREQUISITE
     * naming the publication and the remedy, with no retry.
     */
    @Test
    void alteredPublicationNoLongerPublishingEveryOperationFailsTheStream() throws Exception {
        PostgresSourceConfig config = PostgresTestConfigs.builder(db).slotName(slot).publicationName(slot)
                .slotCheckInterval(Duration.ofSeconds(1)).build();
        CountedRetries retries = new CountedRetries(PostgresConnector.create(config));
        PostgresPosition start = prepare();
        try (ChangeStream<PostgresPosition> stream = retries.connector().openStream(start, TableFilter.all())) {
            db.execute("UPDATE t1 SET n = n + 1 WHERE id = 1");
            StreamTestSupport.events(stream, 1);
            db.execute("ALTER PUBLICATION " + slot + " SET (publish = 'insert, delete')",
                    "UPDATE t1 SET n = n + 1 WHERE id = 2");
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(30));
            System.out.println("publication altered: " + failure);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
            assertThat(failure).hasMessageContaining("Publication '" + slot + "' no longer publishes every operation")
                    .hasMessageContaining("SET (publish = 'insert, update, delete, truncate');")
                    .hasMessageContaining("restart the job without its state with a new slot");
            assertThat(retries.count()).isZero();
        } finally {
            dropSlot();
        }
    }

    /**
     * A captured table dropped from the publication while the source streams: pgoutput would leave its
     * changes out without a word; the slot check finds it and fails the stream (final PREREQUISITE, the
     * table and the statement that adds it back). A captured table dropped, or renamed, is no loss and
     * passes.
     */
    @Test
    void aTableDroppedFromThePublicationWhileStreamingFailsTheStream() throws Exception {
        PostgresPosition start = prepare();
        db.execute("DROP TABLE IF EXISTS gone", "CREATE TABLE gone (id int PRIMARY KEY)",
                "ALTER PUBLICATION " + slot + " ADD TABLE gone");
        CountedRetries retries = new CountedRetries(PostgresConnector.create(checkedEverySecond()));
        try (ChangeStream<PostgresPosition> stream = retries.connector().openStream(start, TableFilter.all())) {
            db.execute("DROP TABLE gone", "ALTER TABLE t1 RENAME TO t1_renamed", "ALTER TABLE t1_renamed RENAME TO t1");
            SlotChecks.pollUntilACheckPassed(db, stream);
            db.execute("ALTER PUBLICATION " + slot + " DROP TABLE t2", "UPDATE t2 SET v = v || 'x' WHERE a = 1");
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(30));
            System.out.println("table dropped from the publication: " + failure);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
            assertThat(failure).hasMessageContaining("Publication '" + slot + "' no longer carries \"public\".\"t2\", "
                            + "which this source captures")
                    .hasMessageContaining("ALTER PUBLICATION \"" + slot + "\" ADD TABLE \"public\".\"t2\";")
                    .hasMessageContaining("restart the job without its state with a new slot")
                    .hasMessageNotContaining("t1").hasMessageNotContaining("gone");
            assertThat(retries.count()).isZero();
        } finally {
            dropSlot();
        }
    }

    /**
     * A captured table dropped from the publication and added back between two slot checks, a change of it in
     * between: pgoutput left that change out, though the publication carries the table again at the next check.
     * Its membership's new OID in the catalogue shows it, and the stream fails likewise (or, should a check fall
     * between the two statements, as a table no longer carried). On PostgreSQL 15+ a schema dropped and added
     * back ({@code TABLES IN SCHEMA}) and a table moved from its own membership to its schema's likewise; a column
     * list set anew ({@code SET TABLE}) passes.
     */
    @Test
    void aTableOrSchemaDroppedFromThePublicationAndAddedBackBetweenChecksFailsTheStream() throws Exception {
        PostgresPosition start = prepare();
        CountedRetries retries = new CountedRetries(PostgresConnector.create(checkedEverySecond()));
        try (ChangeStream<PostgresPosition> stream = retries.connector().openStream(start, TableFilter.all())) {
            db.execute("UPDATE t1 SET n = n + 1 WHERE id = 1");
            StreamTestSupport.events(stream, 1);
            SlotChecks.pollUntilACheckPassed(db, stream);
            db.execute("ALTER PUBLICATION " + slot + " DROP TABLE t2", "UPDATE t2 SET v = v || 'lost' WHERE a = 1",
                    "ALTER PUBLICATION " + slot + " ADD TABLE t2");
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(30));
            System.out.println("table dropped from the publication and added back: " + failure);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
            assertThat(failure).hasMessageContaining("Publication '" + slot + "'")
                    .hasMessageContaining("\"public\".\"t2\"")
                    .hasMessageContaining("restart the job without its state with a new slot")
                    .hasMessageNotContaining("t1");
            assertThat(retries.count()).isZero();
        } finally {
            dropSlot();
        }
        if (db.server().majorVersion() < 15) {
            return;
        }
        db.execute("DROP SCHEMA IF EXISTS inschema CASCADE", "CREATE SCHEMA inschema",
                "CREATE TABLE inschema.t3 (id int PRIMARY KEY)", "ALTER TABLE inschema.t3 OWNER TO " + db.replicationUser(),
                "GRANT USAGE ON SCHEMA inschema TO " + db.replicationUser());
        start = prepare();
        db.execute("ALTER PUBLICATION " + slot + " ADD TABLES IN SCHEMA inschema");
        try (ChangeStream<PostgresPosition> stream = PostgresConnector.create(checkedEverySecond())
                .openStream(start, TableFilter.all())) {
            SlotChecks.pollUntilACheckPassed(db, stream);
            db.execute("ALTER PUBLICATION " + slot + " DROP TABLES IN SCHEMA inschema",
                    "ALTER PUBLICATION " + slot + " ADD TABLES IN SCHEMA inschema");
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(30));
            System.out.println("schema dropped from the publication and added back: " + failure);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
            assertThat(failure).hasMessageContaining("left out \"inschema\".\"t3\"").hasMessageNotContaining("t1");
        } finally {
            dropSlot();
            db.execute("DROP SCHEMA inschema CASCADE");
        }
        // a column list set anew passes; a table moved from its own membership to its schema's, a change between, fails
        start = prepare();
        try (ChangeStream<PostgresPosition> stream = PostgresConnector.create(checkedEverySecond())
                .openStream(start, TableFilter.all())) {
            db.execute("ALTER PUBLICATION " + slot + " SET TABLE t1 (id, v, n), t2");
            SlotChecks.pollUntilACheckPassed(db, stream);
            db.execute("ALTER PUBLICATION " + slot + " SET TABLE t1, t2"); // a schema cannot join beside a column list
            SlotChecks.pollUntilACheckPassed(db, stream);
            db.execute("ALTER PUBLICATION " + slot + " DROP TABLE t2", "UPDATE t2 SET v = v || 'lost' WHERE a = 1",
                    "ALTER PUBLICATION " + slot + " ADD TABLES IN SCHEMA public");
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(30));
            System.out.println("table moved to its schema's membership: " + failure);
            assertThat(failure).hasMessageContaining("\"public\".\"t2\"").hasMessageNotContaining("t1");
        } finally {
            dropSlot();
            db.execute("ALTER PUBLICATION " + slot + " SET TABLE t1, t2");
        }
    }

    /** A row filter set on a captured table while the source streams (PostgreSQL 15+) fails the stream likewise. */
    @Test
    void aRowFilterSetWhileStreamingFailsTheStream() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(db.server().majorVersion() >= 15,
                "row filters came with PostgreSQL 15");
        PostgresPosition start = prepare();
        try (ChangeStream<PostgresPosition> stream = PostgresConnector.create(checkedEverySecond())
                .openStream(start, TableFilter.all())) {
            db.execute("ALTER PUBLICATION " + slot + " SET TABLE t1 WHERE (id < 100), t2");
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(30));
            System.out.println("row filter set: " + failure);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
            assertThat(failure).hasMessageContaining("publishes \"public\".\"t1\" only WHERE (id < 100)")
                    .hasMessageContaining("restart the job without its state with a new slot");
        } finally {
            dropSlot();
        }
    }

    /**
     * publish_via_partition_root switched off while the source streams a partitioned table: its changes would
     * arrive under its partitions' names; the stream fails likewise.
     */
    @Test
    void publishViaRootSwitchedOffWhileStreamingFailsTheStream() throws Exception {
        db.execute("DROP TABLE IF EXISTS parted", "CREATE TABLE parted (id int PRIMARY KEY) PARTITION BY RANGE (id)",
                "CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (1000)");
        PostgresPosition start = prepare();
        db.execute("ALTER PUBLICATION " + slot + " ADD TABLE parted");
        try (ChangeStream<PostgresPosition> stream = PostgresConnector.create(checkedEverySecond())
                .openStream(start, TableFilter.all())) {
            db.execute("ALTER PUBLICATION " + slot + " SET (publish_via_partition_root = false)");
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(30));
            System.out.println("publish_via_partition_root off: " + failure);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
            assertThat(failure).hasMessageContaining("sends the changes of the partitions of \"public\".\"parted\"")
                    .hasMessageContaining("SET (publish_via_partition_root = true);")
                    .hasMessageContaining("restart the job without its state with a new slot");
        } finally {
            dropSlot();
            db.execute("DROP TABLE parted");
        }
    }

    /**
     * An UNLOGGED partition of a captured partitioned table (PostgreSQL refuses unlogged tables in a publication,
     * not partitions under a published root): its changes never reach the WAL. Refused when the stream is
     * prepared; a partition switched to UNLOGGED while streaming fails the stream.
     */
    @Test
    void anUnloggedPartitionIsRefusedAndOneSetUnloggedWhileStreamingFailsTheStream() throws Exception {
        db.execute("DROP TABLE IF EXISTS ulp", "CREATE TABLE ulp (id int PRIMARY KEY) PARTITION BY RANGE (id)",
                "CREATE TABLE ulp_a PARTITION OF ulp FOR VALUES FROM (0) TO (100)",
                "CREATE UNLOGGED TABLE ulp_b PARTITION OF ulp FOR VALUES FROM (100) TO (200)",
                "CREATE PUBLICATION " + slot + " FOR TABLE t1, t2, ulp WITH (publish_via_partition_root = true)");
        try {
            assertThatThrownBy(() -> prepare("t1", "t2", "ulp")).isInstanceOfSatisfying(CdcException.class,
                    e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining("\"public\".\"ulp_b\" (a partition of \"public\".\"ulp\") is UNLOGGED")
                    .hasMessageContaining("ALTER TABLE \"public\".\"ulp_b\" SET LOGGED;");
            db.execute("ALTER TABLE ulp_b SET LOGGED");
            PostgresPosition start = prepare("t1", "t2", "ulp");
            try (ChangeStream<PostgresPosition> stream = PostgresConnector.create(checkedEverySecond())
                    .openStream(start, TableFilter.all())) {
                db.execute("ALTER TABLE ulp_a SET UNLOGGED", "INSERT INTO ulp VALUES (1)");
                CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(30));
                System.out.println("partition set unlogged: " + failure);
                assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
                assertThat(failure).hasMessageContaining("\"public\".\"ulp_a\" (a partition of \"public\".\"ulp\") "
                                + "is UNLOGGED")
                        .hasMessageContaining("restart the job without its state with a new slot");
            }
        } finally {
            dropSlot();
            db.execute("DROP TABLE ulp");
        }
    }

    /**
     * A partition created while streaming under a captured root of REPLICA IDENTITY FULL takes DEFAULT: its
     * deletes would log only the key while pgoutput flags the old row as whole (the other columns null). The
     * stream fails at the next slot check, naming the partition.
     */
    @Test
    void aPartitionCreatedWithoutItsRootsFullIdentityFailsTheStream() throws Exception {
        db.execute("DROP TABLE IF EXISTS fullp", "CREATE TABLE fullp (id int PRIMARY KEY, v text) PARTITION BY RANGE (id)",
                "CREATE TABLE fullp_a PARTITION OF fullp FOR VALUES FROM (0) TO (100)",
                "ALTER TABLE fullp REPLICA IDENTITY FULL", "ALTER TABLE fullp_a REPLICA IDENTITY FULL",
                "CREATE PUBLICATION " + slot + " FOR TABLE t1, t2, fullp WITH (publish_via_partition_root = true)");
        try {
            PostgresPosition start = prepare("t1", "t2", "fullp");
            try (ChangeStream<PostgresPosition> stream = PostgresConnector.create(checkedEverySecond())
                    .openStream(start, TableFilter.all())) {
                db.execute("CREATE TABLE fullp_b PARTITION OF fullp FOR VALUES FROM (100) TO (200)");
                CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(30));
                System.out.println("partition without FULL: " + failure);
                assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
                assertThat(failure).hasMessageContaining("REPLICA IDENTITY of \"public\".\"fullp_b\" does not fit")
                        .hasMessageContaining("ALTER TABLE \"public\".\"fullp_b\" REPLICA IDENTITY FULL;")
                        .hasMessageContaining("restart the job without its state with a new slot");
            }
        } finally {
            dropSlot();
            db.execute("DROP TABLE fullp");
        }
    }

    /**
     * REPLICATION revoked from the source's role while it streams: the running walsender goes on (the
     * attribute is checked when one starts), so the test terminates it; the reopen's replication login is
     * refused (42501), a final PREREQUISITE with the ALTER ROLE to run, after that one reopen.
     */
    @Test
    void aRevokedReplicationAttributeFailsAtTheReopenNamingIt() throws Exception {
        String role = "retry_revoked";
        String password = "pw-revoked";
        db.execute("DROP ROLE IF EXISTS " + role, "CREATE ROLE " + role + " LOGIN REPLICATION PASSWORD '" + password
                + "'", "GRANT SELECT ON t1, t2 TO " + role);
        PostgresPosition start = prepare();
        CountedRetries retries = new CountedRetries(PostgresConnector.create(streaming(role, password,
                ConnectionRetry.of(5, Duration.ofMillis(200), Duration.ofSeconds(1)))));
        try (ChangeStream<PostgresPosition> stream = retries.connector().openStream(start, TableFilter.all())) {
            db.execute("UPDATE t1 SET n = n + 1 WHERE id = 1");
            StreamTestSupport.events(stream, 1);
            db.execute("ALTER ROLE " + role + " NOREPLICATION");
            db.execute("SELECT pg_terminate_backend(" + activeWalsender() + ")");
            CdcException failure = StreamTestSupport.failureOf(stream, Duration.ofSeconds(60));
            System.out.println("replication revoked: " + failure + "; retries " + retries.count());
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
            assertThat(failure).hasMessageContaining("refused " + role + "@" + db.host() + ":" + db.port() + "/"
                            + db.name() + " a replication connection")
                    .hasMessageContaining("ALTER ROLE \"" + role + "\" REPLICATION;")
                    .hasMessageNotContaining(password);
            assertThat(retries.count()).as("retries: the reopen after the terminated walsender").isEqualTo(1);
        } finally {
            dropSlot();
        }
    }

    /**
     * A role whose statement_timeout is shorter than a chunk read (the table locked by another session, so
     * the read waits): the server cancels it (57014), a final PREREQUISITE naming statement_timeout and the
     * statement that lifts it, at once: no retry, no second connection.
     */
    @Test
    void aChunkReadCancelledByStatementTimeoutFailsAtOnceNamingIt() throws Exception {
        String role = "retry_timeout";
        String password = "pw-timeout";
        db.execute("DROP ROLE IF EXISTS " + role, "CREATE ROLE " + role + " LOGIN PASSWORD '" + password + "'",
                "ALTER ROLE " + role + " SET statement_timeout = '1s'", "GRANT SELECT ON t1 TO " + role);
        try (CapturedLogs logs = CapturedLogs.start("io.rustcdc.none");
                FaultProxy proxy = FaultProxy.to(db.host(), db.port());
                Connection locker = db.admin()) {
            CountedRetries retries = new CountedRetries(PostgresConnector.create(PostgresTestConfigs.builder(db)
                    .hostname(proxy.host()).port(proxy.port()).username(role).password(Secret.of(password))
                    .connectionRetry(ConnectionRetry.defaults()).build()));
            try (CatalogSession<PostgresPosition, PostgresChunkMark> session = retries.connector().openSession()) {
                TableDescription t1 = session.describe(TableId.of(db.name(), "public", "t1"));
                locker.setAutoCommit(false);
                locker.createStatement().execute("LOCK TABLE t1 IN ACCESS EXCLUSIVE MODE");
                assertThatThrownBy(() -> session.readChunk(t1, List.of("id"), null, null, e -> { }))
                        .isInstanceOfSatisfying(CdcException.class,
                                e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                        .hasMessageContaining("cancelled a statement (SQLSTATE 57014)")
                        .hasMessageContaining("canceling statement due to statement timeout")
                        .hasMessageContaining("statement_timeout of role " + role)
                        .hasMessageContaining("ALTER ROLE \"" + role + "\" SET statement_timeout = 0;")
                        .hasMessageNotContaining(password);
                locker.rollback();
            }
            assertThat(proxy.accepted()).as("connections: the one session's").isEqualTo(1);
            assertThat(retries.count()).isZero();
            assertThat(logs.containing("Connection failure of")).isEmpty();
        }
    }

    private PostgresSourceConfig streaming(String user, String password, ConnectionRetry retry) {
        return PostgresTestConfigs.builder(db).username(user).password(Secret.of(password)).slotName(slot)
                .publicationName(slot).statusInterval(Duration.ofSeconds(1)).connectionRetry(retry).build();
    }

    /** Slot and publication {@link #slot} created for t1 and t2, as the replication role: the start position. */
    private PostgresPosition prepare() {
        return prepare("t1", "t2");
    }

    /** Prepares a stream of {@code tables} (of schema public), creating the slot and the publication. */
    private PostgresPosition prepare(String... tables) {
        PostgresSourceConfig config = PostgresTestConfigs.streaming(db, slot);
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = PostgresConnector.create(config).openSession()) {
            return session.prepareStream(java.util.Arrays.stream(tables).map(t -> TableId.of(db.name(), "public", t))
                    .toList(), false);
        }
    }

    private void dropSlot() {
        db.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '" + slot
                + "' AND NOT active");
    }

    /** The pid of the walsender streaming {@link #slot}, once there is one. */
    private String activeWalsender() {
        Poll.until("slot " + slot + " streamed", Duration.ofSeconds(60), () -> activeWalsenderOrNull() != null);
        return activeWalsenderOrNull();
    }

    private String activeWalsenderOrNull() {
        return db.queryValue("SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
    }

    private PostgresSourceConfig checkedEverySecond() {
        return PostgresTestConfigs.builder(db).slotName(slot).publicationName(slot)
                .slotCheckInterval(Duration.ofSeconds(1)).build();
    }

    private CdcSource<String, PostgresPosition, PostgresChunkMark> source(FaultProxy proxy, ConnectionRetry retry,
            String password) {
        return source(proxy.host(), proxy.port(), retry, password);
    }

    private CdcSource<String, PostgresPosition, PostgresChunkMark> source(String host, int port, ConnectionRetry retry,
            String password) {
        PostgresSourceConfig.Builder config = PostgresTestConfigs.builder(db).hostname(host).port(port)
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
