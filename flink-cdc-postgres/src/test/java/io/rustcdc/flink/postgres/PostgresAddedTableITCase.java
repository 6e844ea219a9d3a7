package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.RestorableJob;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Stop with a savepoint, add a table to the include list, restore: only the new table is snapshotted. */
@ExtendWith(PostgresExtension.class)
@Timeout(300)
class PostgresAddedTableITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Map<String, List<String>> KEYS = Map.of("t1", List.of("id"), "t2", List.of("a", "b"));

    @Test
    void onlyTheAddedTableIsSnapshottedWhileTheStreamRuns(PostgresDatabase db, @TempDir Path savepoints)
            throws Exception {
        Writers.createTables(db, 5000);
        JsonChangelog changelog = new JsonChangelog(KEYS);

        String savepoint;
        try (RestorableJob first = RestorableJob.start(source(db, "public.t1"), null)) {
            Map<String, String> t1Before = PostgresSourceITCase.t1(db);
            drainUntil(first.records, changelog, json -> { }, () -> changelog.rows("t1").equals(t1Before),
                    () -> changelog.differences("t1", t1Before));
            savepoint = first.stopWithSavepoint(savepoints);
            first.records.forEach(changelog::apply);
        }

        db.execute("ALTER PUBLICATION added ADD TABLE t2");
        int[] t1Reads = {0};
        try (ConcurrentWriters writers = Writers.start(db, 2, 6_000, 5000);
                RestorableJob second = RestorableJob.start(source(db, "public.t1", "public.t2"), savepoint)) {
            writers.awaitEnd();
            Map<String, String> t1 = PostgresSourceITCase.t1(db);
            Map<String, String> t2 = PostgresSourceITCase.t2(db);
            drainUntil(second.records, changelog, json -> {
                if (json.get("table").asText().equals("t1") && json.get("op").asText().equals("read")) {
                    t1Reads[0]++;
                }
            }, () -> changelog.rows("t1").equals(t1) && changelog.rows("t2").equals(t2),
                    () -> changelog.differences("t1", t1) + "; " + changelog.differences("t2", t2));
        }
        assertThat(t1Reads[0]).as("t1 is not read again").isZero();
        assertThat(changelog.violations()).isEmpty();
    }

    /**
     * A table found while the job streams, once it joins the publication, while a transaction that wrote it
     * before is still open: pgoutput leaves that transaction's earlier changes out (it publishes by the
     * publication as of each change), so the table's snapshot must wait for the transaction to end
     * ({@code PgRunningTransactions}), or those changes are lost.
     */
    @Test
    void aTransactionThatWroteTheTableBeforeItJoinedThePublicationIsWaitedFor(PostgresDatabase db) throws Exception {
        Writers.createTables(db, 900);
        db.execute("DROP PUBLICATION IF EXISTS inflight", "CREATE PUBLICATION inflight FOR TABLE t1");
        JsonChangelog changelog = new JsonChangelog(KEYS);
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, "inflight")))
                .includeTables("public.t1", "public.t2")
                .chunkSize(100)
                .tableDiscoveryInterval(java.time.Duration.ofSeconds(1))
                .deserializer(ChangeEventDeserializer.json())
                .build();
        try (RestorableJob job = RestorableJob.start(source, null); Connection inFlight = db.admin();
                Statement s = inFlight.createStatement()) {
            Map<String, String> t1 = PostgresSourceITCase.t1(db);
            drainUntil(job.records, changelog, json -> { }, () -> changelog.rows("t1").equals(t1),
                    () -> changelog.differences("t1", t1));
            inFlight.setAutoCommit(false);
            s.execute("INSERT INTO t2 VALUES (-1, -1, 'written before t2 joined the publication')");
            s.execute("UPDATE t2 SET v = 'updated before' WHERE a = 1 AND b = 1");
            db.execute("ALTER PUBLICATION inflight ADD TABLE t2");
            s.execute("INSERT INTO t2 VALUES (-2, -2, 'written after')");
            // until the source has snapshotted t2 (its 300 rows; without the wait) or waits for the transaction
            drainUntil(job.records, changelog, json -> { }, () -> changelog.rows("t2").size() >= 300
                    || !"0".equals(db.queryValue("SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
                    + "AND query LIKE '%pg_xact_status(x::xid8)%'")), () -> "no snapshot of t2");
            s.execute("UPDATE t2 SET v = 'updated after' WHERE a = 2 AND b = 2");
            inFlight.commit();
            Map<String, String> t2 = PostgresSourceITCase.t2(db);
            drainUntil(job.records, changelog, json -> { }, () -> changelog.rows("t2").equals(t2),
                    () -> changelog.differences("t2", t2));
        } finally {
            db.execute("SELECT pg_drop_replication_slot('inflight') FROM pg_replication_slots "
                    + "WHERE slot_name = 'inflight' AND NOT active");
        }
        assertThat(changelog.violations()).isEmpty();
    }

    private static CdcSource<String, PostgresPosition, PostgresChunkMark> source(PostgresDatabase db, String... tables) {
        return CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, "added")))
                .includeTables(tables)
                .chunkSize(300)
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    interface Condition {
        boolean holds();
    }

    interface Inspector {
        void inspect(JsonNode json);
    }

    private static void drainUntil(BlockingQueue<String> records, JsonChangelog changelog, Inspector inspector,
            Condition done, Supplier<String> differences) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!done.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out; ops " + changelog.ops() + ", violations " + changelog.violations()
                        + ", " + differences.get());
            }
            String r = records.poll(100, TimeUnit.MILLISECONDS);
            if (r != null) {
                inspector.inspect(MAPPER.readTree(r));
                changelog.apply(r);
            }
        }
    }
}
