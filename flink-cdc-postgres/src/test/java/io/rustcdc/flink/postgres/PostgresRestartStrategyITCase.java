package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.RestartingJob;
import io.rustcdc.flink.testing.TwoTables;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
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
 * Under a real restart strategy (fixed delay, several attempts): a final failure fails the job once,
 * with its message, from the enumerator (a global failure) and from the reader (a task failure);
 * a connection the server drops is restarted and the changelog stays exact.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(180)
class PostgresRestartStrategyITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final Duration FAILS_WITHIN = Duration.ofSeconds(60);

    @Test
    void missingPublicationFailsTheJobOnce(PostgresDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Writers.createTables(db, 10);
        PostgresSourceConfig config = PostgresTestConfigs.builder(db).slotName("nopub").publicationName("nopub")
                .createSlotIfMissing(true).build();
        try (RestartingJob job = RestartingJob.startDiscarding(cluster, source(config))) {
            CdcException failure = job.awaitFailure(FAILS_WITHIN);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
            assertThat(failure).hasMessageContaining("Publication 'nopub' does not exist");
            assertThat(job.failures()).as("failures handled, each one a restart but the last").isEqualTo(1);
        }
    }

    /** A refused login is final: the password does not fix itself between attempts. */
    @Test
    void refusedLoginFailsTheJobOnce(PostgresDatabase db, @InjectMiniCluster MiniCluster cluster) throws Exception {
        Writers.createTables(db, 10);
        PostgresSourceConfig config = PostgresTestConfigs.builder(db).password(Secret.of("wrong-secret-456"))
                .slotName("login").publicationName("login").createSlotIfMissing(true)
                .createPublicationIfMissing(true).build();
        try (RestartingJob job = RestartingJob.startDiscarding(cluster, source(config))) {
            CdcException failure = job.awaitFailure(FAILS_WITHIN);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.PREREQUISITE);
            assertThat(failure).hasMessageContaining("refused the login of " + db.replicationUser() + "@")
                    .hasMessageNotContaining("wrong-secret-456");
            assertThat(job.failures()).isEqualTo(1);
        }
    }

    @Test
    void includeListMatchingNoTableFailsTheJobOnce(PostgresDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Writers.createTables(db, 10);
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, "notable")))
                .includeTables("public.no_such_table")
                .deserializer(ChangeEventDeserializer.json())
                .build();
        try (RestartingJob job = RestartingJob.startDiscarding(cluster, source)) {
            CdcException failure = job.awaitFailure(FAILS_WITHIN);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.CONFIGURATION);
            assertThat(failure).hasMessageContaining("No table of the postgres source matches");
            assertThat(job.failures()).isEqualTo(1);
        }
    }

    /**
     * A configured row filter the database accepts but that fails on some rows (a division by zero from id 5
     * on) fails the job once, naming the table, the filter, the option and the database's message.
     */
    @Test
    void configuredRowFilterFailingOnSomeRowsFailsTheJobOnce(PostgresDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Writers.createTables(db, 10);
        String filter = "CASE WHEN id < 5 THEN true ELSE 1 / (id - id) > 0 END";
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, "badfilter")))
                .includeTables("public.t1", "public.t2")
                .rowFilter("public.t1", filter)
                .chunkSize(200)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        try (RestartingJob job = RestartingJob.startDiscarding(cluster, source)) {
            CdcException failure = job.awaitFailure(FAILS_WITHIN);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.CONFIGURATION);
            assertThat(failure).hasMessageContaining("rowFilter(\"public.t1\", ...)").hasMessageContaining("public.t1")
                    .hasMessageContaining("[" + filter + "]").hasMessageContaining("division by zero")
                    .hasMessageContaining("Correct the condition");
            assertThat(job.failures()).isEqualTo(1);
        }
    }

    /** The reader finds the slot gone when the job is restored: a task failure, final. */
    @Test
    void lostSlotFailsTheRestoredJobOnce(PostgresDatabase db, @InjectMiniCluster MiniCluster cluster,
            @TempDir Path savepoints) throws Exception {
        Writers.createTables(db, 10);
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = source(PostgresTestConfigs.streaming(db, "lost"));
        String savepoint;
        try (RestartingJob job = RestartingJob.start(cluster, source)) {
            JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
            Map<String, String> t1 = t1(db);
            changelog.drainUntil(job.records, () -> changelog.rows("t1").equals(t1), Duration.ofSeconds(60));
            savepoint = job.stopWithSavepoint(savepoints);
        }
        db.execute("SELECT pg_drop_replication_slot('lost')");
        try (RestartingJob job = RestartingJob.restore(cluster, source, savepoint)) {
            CdcException failure = job.awaitFailure(FAILS_WITHIN);
            assertThat(failure.kind()).isEqualTo(CdcException.Kind.POSITION_LOST);
            assertThat(failure).hasMessageContaining("Replication slot 'lost' no longer exists");
            assertThat(job.failures()).isEqualTo(1);
        }
    }

    /**
     * Transient: the walsender terminated while writers run, twice; with the source's own retry off
     * ({@code connect.max-retries} = 0; PostgresConnectionRetryITCase covers it), Flink restarts, nothing
     * lost or doubled.
     */
    @Test
    void terminatedReplicationConnectionIsRestartedExactly(PostgresDatabase db, @InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Writers.createTables(db, 2_000);
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = source(PostgresTestConfigs.builder(db).slotName("term")
                .publicationName("term").createSlotIfMissing(true).createPublicationIfMissing(true)
                .connectionRetry(ConnectionRetry.none()).build());
        JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
        try (RestartingJob job = RestartingJob.start(cluster, source);
                ConcurrentWriters writers = Writers.start(db, 2, 6_000, 2_000)) {
            for (int kill = 0; kill < 2; kill++) {
                String query = "SELECT active_pid FROM pg_replication_slots WHERE slot_name = 'term' AND active";
                Poll.until("the slot is streamed", Duration.ofSeconds(60), () -> db.queryColumn(query).size() == 1);
                Thread.sleep(1_000);
                db.execute("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = 'term'");
            }
            writers.awaitEnd();
            Map<String, Map<String, String>> expected;
            try (Connection c = db.admin()) {
                expected = TwoTables.rows(c);
            }
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, expected), Duration.ofSeconds(90));
            assertThat(changelog.violations()).isEmpty();
            assertThat(job.failures()).as("failures restarted").isBetween(1, RestartingJob.ATTEMPTS);
            assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
        }
    }

    private static CdcSource<String, PostgresPosition, PostgresChunkMark> source(PostgresSourceConfig config) {
        return CdcSource.builder()
                .connector(PostgresConnector.create(config))
                .includeTables("public.t1", "public.t2")
                .chunkSize(200)
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    private static Map<String, String> t1(PostgresDatabase db) throws Exception {
        try (Connection c = db.admin()) {
            return TwoTables.t1(c);
        }
    }
}
