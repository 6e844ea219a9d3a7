package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.RestartingJob;
import io.rustcdc.flink.testing.TwoTables;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A sink blocked for several times the walsender's {@code wal_sender_timeout} (3 s here, set for
 * this test's database only), then released: the replication connection survives, because the
 * stream sends status updates on a schedule of its own, and the changelog is exact.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(180)
class PostgresKeepaliveITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final Duration WAL_SENDER_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration BLOCKED = Duration.ofSeconds(12);

    /** Holds each record while a test blocks the sink (one JVM: the MiniCluster runs in the test's). */
    static volatile boolean blocked;

    @Test
    void blockedSinkLongerThanWalSenderTimeoutKeepsTheConnection(PostgresDatabase db,
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        db.execute("ALTER ROLE " + db.replicationUser() + " IN DATABASE " + db.name() + " SET wal_sender_timeout = '"
                + WAL_SENDER_TIMEOUT.toMillis() + "ms'");
        Writers.createTables(db, 100);
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.builder(db).slotName("keepalive")
                        .publicationName("keepalive").createSlotIfMissing(true).createPublicationIfMissing(true)
                        .statusInterval(Duration.ofSeconds(1)).build()))
                .includeTables("public.t1", "public.t2")
                .deserializer(ChangeEventDeserializer.json())
                .build();
        JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
        blocked = false;
        try (RestartingJob job = RestartingJob.start(cluster, source, s -> s.map(new Gate()))) {
            Map<String, String> snapshot = t1(db);
            changelog.drainUntil(job.records, () -> changelog.rows("t1").equals(snapshot), Duration.ofSeconds(60));
            String query = "SELECT active_pid FROM pg_replication_slots WHERE slot_name = 'keepalive' AND active";
            Poll.until("the slot is streamed", Duration.ofSeconds(30), () -> db.queryColumn(query).size() == 1);
            String walsender = db.queryValue(query);
            assertThat(db.queryValue("SELECT setting FROM pg_settings s, pg_stat_activity a WHERE a.pid = " + walsender
                    + " AND s.name = 'wal_sender_timeout'")).isNotNull();

            blocked = true;
            // enough changes to fill the reader's queue and the socket buffers while the sink holds them
            for (int tx = 0; tx < 40; tx++) {
                db.execute("INSERT INTO t1 SELECT g, repeat('x', 500), g FROM generate_series(" + (1_000 + tx * 250)
                        + ", " + (1_000 + tx * 250 + 249) + ") g");
            }
            Thread.sleep(BLOCKED.toMillis());
            assertThat(db.queryColumn(query)).as("the walsender streaming the slot after the sink was blocked "
                    + BLOCKED + " (wal_sender_timeout " + WAL_SENDER_TIMEOUT + ")").containsExactly(walsender);
            blocked = false;

            db.execute("UPDATE t1 SET n = -n WHERE id % 7 = 0", "DELETE FROM t1 WHERE id % 11 = 0");
            Map<String, Map<String, String>> expected;
            try (Connection c = db.admin()) {
                expected = TwoTables.rows(c);
            }
            changelog.drainUntil(job.records, () -> TwoTables.reached(changelog, expected), Duration.ofSeconds(90));
            assertThat(changelog.violations()).isEmpty();
            assertThat(job.failures()).as("failures").isZero();
            assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
            assertThat(db.queryColumn(query)).containsExactly(walsender);
        } finally {
            blocked = false;
        }
    }

    private static Map<String, String> t1(PostgresDatabase db) throws Exception {
        try (Connection c = db.admin()) {
            return TwoTables.t1(c);
        }
    }

    /** Passes records on, holding each while {@link #blocked} is set. */
    static final class Gate implements MapFunction<String, String> {
        @Override
        public String map(String value) throws Exception {
            while (blocked) {
                Thread.sleep(20);
            }
            return value;
        }
    }
}
