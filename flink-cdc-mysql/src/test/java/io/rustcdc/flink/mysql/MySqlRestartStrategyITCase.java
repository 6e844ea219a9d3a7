package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.RestartingJob;
import io.rustcdc.flink.testing.TwoTables;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under a real restart strategy (fixed delay, several attempts): a purged binlog position, a
 * refused login and a server-id clash fail the job once, with their message; a killed binlog connection is restarted
 * and the changelog stays exact.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(240)
class MySqlRestartStrategyITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final Duration FAILS_WITHIN = Duration.ofSeconds(60);

    /** The reader finds the binlog file of its restored position purged: a task failure, final. */
    @Test
    void purgedPositionFailsTheRestoredJobOnce(@InjectMiniCluster MiniCluster cluster, @TempDir Path savepoints)
            throws Exception {
        assumeFalse(MySqlServer.external(), "purges binlogs: only on a server of the test's own");
        MySqlDatabase db = MySqlServer.startPrivate().createDatabase("purged");
        MySqlWriters.createTables(db, 10);
        CdcSource<String, MySqlPosition, MySqlPosition> source = source(db, MySqlTestConfigs.config(db));
        String savepoint;
        try (RestartingJob job = RestartingJob.start(cluster, source)) {
            JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
            Map<String, Map<String, String>> rows = rows(db);
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, rows), Duration.ofSeconds(60));
            savepoint = job.stopWithSavepoint(savepoints);
        }
        db.execute("FLUSH BINARY LOGS", "INSERT INTO t1 VALUES (100, 'after', 1)", "FLUSH BINARY LOGS");
        String newest = db.binlogStatus().get(0);
        Poll.until("the older binlog files are purged", Duration.ofSeconds(30), () -> {
            db.execute("FLUSH ENGINE LOGS", "PURGE BINARY LOGS TO '" + newest + "'");
            return db.query("SHOW BINARY LOGS").size() == 1;
        });
        try (RestartingJob job = RestartingJob.restore(cluster, source, savepoint)) {
            CdcException failure = job.awaitFailure(FAILS_WITHIN);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.POSITION_LOST);
            assertThat(failure).hasMessageContaining("restart the source without its state");
            assertThat(job.failures()).as("failures handled, each one a restart but the last").isEqualTo(1);
        }
    }

    /** Two sources with one server-id: the server drops the first one's binlog connection; that one fails once. */
    @Test
    void serverIdClashFailsTheJobOnce(MySqlDatabase db, @InjectMiniCluster MiniCluster cluster) throws Exception {
        MySqlWriters.createTables(db, 10);
        MySqlSourceConfig config = MySqlTestConfigs.config(db);
        try (RestartingJob first = RestartingJob.start(cluster, source(db, config))) {
            JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
            Map<String, Map<String, String>> rows = rows(db);
            changelog.drainUntil(first.records, () -> TwoTables.reached(changelog, rows), Duration.ofSeconds(60));
            Poll.until("the first source reads the binlog", Duration.ofSeconds(30), () -> !binlogDumps(db).isEmpty());
            try (RestartingJob second = RestartingJob.start(cluster, source(db, config))) {
                CdcException failure = first.awaitFailure(FAILS_WITHIN);
                assertThat(failure.kind()).isEqualTo(CdcException.Kind.CONFIGURATION);
                assertThat(failure).hasMessageContaining("connected with the same server-id " + config.serverId());
                assertThat(first.failures()).isEqualTo(1);
                assertThat(second.status()).isEqualTo(JobStatus.RUNNING);
            }
        }
    }

    /**
     * A configured row filter the database accepts but that fails on some rows (a subquery of two rows from
     * id 5 on) fails the job once, not retried as a connection failure, naming the table, the filter, the
     * option and the database's message.
     */
    @Test
    void configuredRowFilterFailingOnSomeRowsFailsTheJobOnce(MySqlDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        MySqlWriters.createTables(db, 10);
        String filter = "id < 5 OR (SELECT 1 UNION ALL SELECT t1.id) = 1";
        CdcSource<String, MySqlPosition, MySqlPosition> source = CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.config(db)))
                .includeTables(db.name() + ".t1", db.name() + ".t2")
                .rowFilter(db.name() + ".t1", filter)
                .chunkSize(200)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        try (RestartingJob job = RestartingJob.startDiscarding(cluster, source)) {
            CdcException failure = job.awaitFailure(FAILS_WITHIN);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.CONFIGURATION);
            assertThat(failure).hasMessageContaining("rowFilter(\"" + db.name() + ".t1\", ...)")
                    .hasMessageContaining("[" + filter + "]").hasMessageContaining("more than 1 row")
                    .hasMessageContaining("Correct the condition");
            assertThat(job.failures()).isEqualTo(1);
        }
    }

    /** A refused login is final: the password does not fix itself between attempts. */
    @Test
    void refusedLoginFailsTheJobOnce(MySqlDatabase db, @InjectMiniCluster MiniCluster cluster) throws Exception {
        MySqlWriters.createTables(db, 10);
        MySqlSourceConfig config = MySqlTestConfigs.builder(db)
                .password(io.rustcdc.flink.source.Secret.of("wrong-secret-789")).build();
        try (RestartingJob job = RestartingJob.startDiscarding(cluster, source(db, config))) {
            CdcException failure = job.awaitFailure(FAILS_WITHIN);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
            assertThat(failure).hasMessageContaining("as '" + config.username() + "'")
                    .hasMessageContaining("Check host, port, user and password")
                    .hasMessageNotContaining("wrong-secret-789");
            assertThat(job.failures()).isEqualTo(1);
        }
    }

    /**
     * Transient: the binlog connection killed on the server, twice, while writers run; with the source's
     * own retry off ({@code connect.max-retries} = 0; MySqlConnectionRetryITCase covers it), restarted, exact.
     */
    @Test
    void killedBinlogConnectionIsRestartedExactly(MySqlDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        MySqlWriters.createTables(db, 2_000);
        JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
        try (RestartingJob job = RestartingJob.start(cluster, source(db,
                MySqlTestConfigs.builder(db).connectionRetry(ConnectionRetry.none()).build()));
                ConcurrentWriters writers = MySqlWriters.start(db, 2, 6_000, 2_000)) {
            for (int kill = 0; kill < 2; kill++) {
                Poll.until("the source reads the binlog", Duration.ofSeconds(60), () -> !binlogDumps(db).isEmpty());
                Thread.sleep(1_000);
                Poll.until("a binlog connection killed", Duration.ofSeconds(60), () -> killBinlogDumps(db) > 0);
            }
            writers.awaitEnd();
            Map<String, Map<String, String>> expected = rows(db);
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, expected), Duration.ofSeconds(90));
            assertThat(changelog.violations()).isEmpty();
            assertThat(job.failures()).as("failures restarted").isBetween(1, RestartingJob.ATTEMPTS);
            assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
        }
    }

    /**
     * Kills the binlog dump threads {@link #binlogDumps} lists; returns how many it killed. One may end by itself
     * between the listing and its KILL (on Oracle MySQL a chunk's backfill reads the binlog on a connection of its
     * own while the snapshot runs).
     */
    private static int killBinlogDumps(MySqlDatabase db) {
        int killed = 0;
        for (String id : binlogDumps(db)) {
            try {
                db.execute("KILL " + id);
                killed++;
            } catch (IllegalStateException gone) {
                if (!String.valueOf(gone.getMessage()).contains("Unknown thread id")) {
                    throw gone;
                }
            }
        }
        return killed;
    }

    /** The ids of the server's binlog dump threads serving this test's user (not the backfill's, which end by themselves). */
    private static List<String> binlogDumps(MySqlDatabase db) {
        return db.query("SELECT id FROM information_schema.processlist WHERE command LIKE 'Binlog Dump%' AND user = '"
                + db.cdcUser() + "'").stream().map(r -> r.get(0)).toList();
    }

    private static CdcSource<String, MySqlPosition, MySqlPosition> source(MySqlDatabase db, MySqlSourceConfig config) {
        return CdcSource.builder()
                .connector(MySqlConnector.create(config))
                .includeTables(db.name() + ".t1", db.name() + ".t2")
                .chunkSize(200)
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    private static Map<String, Map<String, String>> rows(MySqlDatabase db) throws Exception {
        try (Connection c = db.admin()) {
            return TwoTables.rows(c);
        }
    }
}
