package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.control.ControlRequest;
import io.rustcdc.flink.source.control.ControlResult;
import io.rustcdc.flink.source.control.SnapshotControl;
import io.rustcdc.flink.source.control.TableReadout;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.ControlBatch;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.RestorableJob;
import io.rustcdc.flink.testing.StoppedPartWay;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
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
 * On-demand snapshots on a running job, under writers: a finished table requested again, paused (the
 * pause survives a stop with a savepoint and a restore), resumed, requested and stopped, a request
 * naming a table that is not there rejected whole; the changelog ends equal to both tables. The table
 * read again may repeat rows (a re-snapshot delivers its rows again, see docs/operations.md); the
 * other one's changelog stays exact. And requests pending over JobManager failovers: carried out
 * once, neither lost nor applied twice.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(400)
class PostgresSnapshotControlITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).withHaLeadershipControl().build());

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Map<String, List<String>> KEYS = Map.of("t1", List.of("id"), "t2", List.of("a", "b"));
    private static final Duration ANSWER = Duration.ofSeconds(60);

    @Test
    void aFinishedTableIsReadAgainPausedResumedAndStoppedWhileTheStreamRuns(PostgresDatabase db,
            @TempDir Path control, @TempDir Path savepoints) throws Exception {
        Writers.createTables(db, 5000);
        JsonChangelog changelog = new JsonChangelog(KEYS);
        SnapshotControl client = SnapshotControl.at(control.toUri().toString());
        int[] t1Reads = {0};
        Inspector countReads = json -> {
            if (json.get("table").asText().equals("t1") && json.get("op").asText().equals("read")) {
                t1Reads[0]++;
            }
        };

        String savepoint;
        try (ConcurrentWriters writers = Writers.start(db, 2, 25_000, 5000);
                RestorableJob job = RestorableJob.start(source(db, control), null)) {
            waitFor(job.records, changelog, countReads, () -> status(client, "public.t1").equals(TableReadout.CAPTURED)
                    && status(client, "public.t2").equals(TableReadout.CAPTURED), () -> "first snapshot: "
                    + client.state());
            // the snapshot's last rows reach the test after the checkpoints that hold them
            drainFor(job.records, changelog, countReads, Duration.ofSeconds(3));
            int firstReads = t1Reads[0];
            assertThat(firstReads).as("the writers delete rows meanwhile").isGreaterThan(4000);

            // one poll takes all three, in id order: requested, paused before a chunk is read, asked again
            ControlBatch.send(control, ControlRequest.of("a1-request", ControlRequest.Operation.REQUEST, List.of("public.t1")),
                    ControlRequest.of("a2-pause", ControlRequest.Operation.PAUSE, List.of("public.t1")),
                    ControlRequest.of("a3-request", ControlRequest.Operation.REQUEST, List.of("public.t1")));
            ControlResult requested = await(job, changelog, countReads, client, "a1-request");
            assertThat(requested.applied()).as(requested.toString()).isTrue();
            assertThat(requested.previous()).containsEntry("public.t1", TableReadout.CAPTURED);
            ControlResult paused = await(job, changelog, countReads, client, "a2-pause");
            assertThat(paused.applied()).isTrue();
            assertThat(paused.previous()).containsEntry("public.t1", TableReadout.QUEUED);
            ControlResult again = await(job, changelog, countReads, client, "a3-request");
            assertThat(again.applied()).isTrue();
            assertThat(again.message()).contains("already in progress");
            assertThat(again.previous()).containsEntry("public.t1", TableReadout.PAUSED);

            // paused: no chunk of t1 is read
            waitFor(job.records, changelog, countReads, () -> readout(client, "public.t1").chunksRead() >= 0
                    && status(client, "public.t1").equals(TableReadout.PAUSED), () -> "paused: " + client.state());
            drainFor(job.records, changelog, countReads, Duration.ofSeconds(2));
            int readsPaused = t1Reads[0];
            drainFor(job.records, changelog, countReads, Duration.ofSeconds(3));
            assertThat(t1Reads[0]).as("no row of t1 is read while it is paused").isEqualTo(readsPaused);
            assertThat(readsPaused).as("requested and paused in one poll: the reader is told the pause first")
                    .isEqualTo(firstReads);
            savepoint = job.stopWithSavepoint(savepoints);
            job.records.forEach(r -> applyOne(r, changelog, countReads));
        }

        try (ConcurrentWriters writers = Writers.start(db, 2, 20_000, 5000);
                RestorableJob job = RestorableJob.start(source(db, control), savepoint)) {
            int readsBefore = t1Reads[0];
            waitFor(job.records, changelog, countReads, () -> status(client, "public.t1").equals(TableReadout.PAUSED),
                    () -> "paused after the restore: " + client.state());
            drainFor(job.records, changelog, countReads, Duration.ofSeconds(3));
            assertThat(t1Reads[0]).as("the pause survives the restore").isEqualTo(readsBefore);

            ControlResult resumed = await(job, changelog, countReads, client, client.resume("public.t1"));
            assertThat(resumed.previous()).containsEntry("public.t1", TableReadout.PAUSED);
            waitFor(job.records, changelog, countReads, () -> status(client, "public.t1").equals(TableReadout.CAPTURED),
                    () -> "read again: " + client.state());
            // the rows reach the test after the checkpoint that holds them
            waitFor(job.records, changelog, countReads, () -> t1Reads[0] - readsBefore > 4000,
                    () -> "t1's rows are delivered again: " + (t1Reads[0] - readsBefore));

            // requested and stopped before it is done: the rest of its chunks are dropped, its stream goes on
            ControlBatch.send(control, ControlRequest.of("b1-request", ControlRequest.Operation.REQUEST, List.of("public.t1")),
                    ControlRequest.of("b2-pause", ControlRequest.Operation.PAUSE, List.of()));
            await(job, changelog, countReads, client, "b2-pause");
            ControlResult stopped = await(job, changelog, countReads, client, client.stop("public.t1"));
            assertThat(stopped.applied()).isTrue();
            assertThat(stopped.previous()).containsEntry("public.t1", TableReadout.PAUSED);
            ControlResult stoppedAgain = await(job, changelog, countReads, client, client.stop("public.t1"));
            assertThat(stoppedAgain.previous()).as("idempotent").containsEntry("public.t1", TableReadout.STOPPED);

            ControlResult rejected = await(job, changelog, countReads, client,
                    client.request("public.t2", "public.nope"));
            assertThat(rejected.applied()).isFalse();
            assertThat(rejected.message()).contains("public.nope");
            drainFor(job.records, changelog, countReads, Duration.ofSeconds(1));
            assertThat(status(client, "public.t2")).as("nothing of a rejected request is applied")
                    .isEqualTo(TableReadout.CAPTURED);

            writers.endNow(); // every operation came under the writers
            Map<String, String> t1 = PostgresSourceITCase.t1(db);
            Map<String, String> t2 = PostgresSourceITCase.t2(db);
            waitFor(job.records, changelog, countReads,
                    () -> changelog.rows("t1").equals(t1) && changelog.rows("t2").equals(t2),
                    () -> changelog.differences("t1", t1) + "; " + changelog.differences("t2", t2));
            assertThat(status(client, "public.t1")).isEqualTo(TableReadout.STOPPED);
        }
        // t1 was read again: its rows, and changes its chunks already showed, come again; nothing else differs
        assertThat(changelog.violations()).allSatisfy(v -> assertThat(v).matches("(read|insert) of a row already "
                + "emitted: t1 .*"));
    }

    /**
     * A request and a pause written while no JobManager leads the job are both applied after it fails over
     * (not lost); the pause holds over a second failover once a checkpoint holds it, with no request
     * applied again (the answers stay as they were); a resume sent just before a third failover is carried
     * out once, whether that failover came before or after its poll or its checkpoint. The table read again
     * is left alone by the writers, so every row of it must be read exactly once after the request; the
     * other table's changes go on through the failovers, exact.
     */
    @Test
    void requestsPendingOverJobManagerFailoversAreCarriedOutOnce(PostgresDatabase db, @TempDir Path control,
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        Writers.createTables(db, 1500);
        JsonChangelog changelog = new JsonChangelog(KEYS);
        SnapshotControl client = SnapshotControl.at(control.toUri().toString());
        Map<String, Integer> rereadKeys = new HashMap<>();
        boolean[] requested = {false};
        Inspector countReads = json -> {
            if (requested[0] && json.get("table").asText().equals("t1") && json.get("op").asText().equals("read")) {
                rereadKeys.merge(json.get("after").get("id").toString() + "|", 1, Integer::sum);
            }
        };
        Path requests = control.resolve("requests");
        Path readout = control.resolve("state.tsv");
        try (ConcurrentWriters writers = Writers.startOnT2(db, 1, 10_000, 1500);
                RestorableJob job = RestorableJob.start(source(db, control, "control_failover"), null)) {
            waitFor(job.records, changelog, countReads, () -> status(client, "public.t1").equals(TableReadout.CAPTURED)
                    && status(client, "public.t2").equals(TableReadout.CAPTURED), () -> "first snapshot: "
                    + client.state());
            // the snapshot's last rows reach the test after the checkpoints that hold them
            Map<String, String> t1 = PostgresSourceITCase.t1(db);
            waitFor(job.records, changelog, countReads, () -> changelog.rows("t1").equals(t1),
                    () -> changelog.differences("t1", t1));

            // written while no JobManager leads the job: both in the restored enumerator's first poll
            job.failOverJobManager(cluster, () -> {
                client.send(ControlRequest.of("a1-request", ControlRequest.Operation.REQUEST, List.of("public.t1")));
                client.send(ControlRequest.of("a2-pause", ControlRequest.Operation.PAUSE, List.of("public.t1")));
                return null;
            });
            requested[0] = true;
            ControlResult request = await(job, changelog, countReads, client, "a1-request");
            assertThat(request.applied()).as(request.toString()).isTrue();
            assertThat(request.previous()).containsEntry("public.t1", TableReadout.CAPTURED);
            ControlResult pause = await(job, changelog, countReads, client, "a2-pause");
            assertThat(pause.previous()).as(pause.toString()).containsEntry("public.t1", TableReadout.QUEUED);
            // a completed checkpoint holds both: their files are deleted
            waitFor(job.records, changelog, countReads, () -> !Files.exists(requests.resolve("a1-request.request"))
                    && !Files.exists(requests.resolve("a2-pause.request")), () -> "request files: " + list(requests));

            // the pause and the request are in the restored state, and neither is applied again
            job.failOverJobManager(cluster, () -> Files.deleteIfExists(readout));
            waitFor(job.records, changelog, countReads, () -> Files.exists(readout), () -> "no readout after the failover");
            assertThat(status(client, "public.t1")).as(client.state().toString()).isEqualTo(TableReadout.PAUSED);
            assertThat(client.result("a1-request")).contains(request);
            assertThat(client.result("a2-pause")).contains(pause);
            drainFor(job.records, changelog, countReads, Duration.ofSeconds(2));
            assertThat(rereadKeys).as("no row of t1 is read while it is paused").isEmpty();

            // a resume, and at once a failover: applied once, before it or after it
            client.send(ControlRequest.of("b1-resume", ControlRequest.Operation.RESUME, List.of("public.t1")));
            job.failOverJobManager(cluster, () -> null);
            ControlResult resume = await(job, changelog, countReads, client, "b1-resume");
            assertThat(resume.applied()).as(resume.toString()).isTrue();
            assertThat(resume.previous()).containsEntry("public.t1", TableReadout.PAUSED);
            waitFor(job.records, changelog, countReads, () -> status(client, "public.t1").equals(TableReadout.CAPTURED)
                    && rereadKeys.size() >= t1.size(), () -> "read again: " + rereadKeys.size() + " of " + t1.size()
                    + " rows; " + client.state());

            writers.awaitEnd();
            Map<String, String> t2 = PostgresSourceITCase.t2(db);
            waitFor(job.records, changelog, countReads,
                    () -> changelog.rows("t1").equals(t1) && changelog.rows("t2").equals(t2),
                    () -> changelog.differences("t1", t1) + "; " + changelog.differences("t2", t2));
            drainFor(job.records, changelog, countReads, Duration.ofSeconds(1));
            assertThat(rereadKeys.keySet()).as("every row of t1 read again").isEqualTo(t1.keySet());
            assertThat(rereadKeys).as("and once").allSatisfy((key, reads) -> assertThat(reads).as(key).isEqualTo(1));
            assertThat(PostgresSourceITCase.t1(db)).as("the writers left t1 alone").isEqualTo(t1);
        }
        // t1 was read again: its rows come again, once; nothing else differs
        assertThat(changelog.violations()).allSatisfy(v -> assertThat(v).startsWith("read of a row already emitted: t1 "))
                .hasSize(PostgresSourceITCase.t1(db).size());
    }

    /**
     * A table whose first snapshot is stopped part-way, after rows of it went downstream, then requested again,
     * with deletes of delivered rows in between: the changelog ends equal to the table ({@link StoppedPartWay}).
     * Before the fix the stopped table left the captured set: the deletes made while it was stopped were lost, and
     * its next snapshot, read as a new table, left out the deletes its chunks showed, so rows the first, partial
     * snapshot delivered stayed downstream (found by an adversarial probe).
     */
    @Test
    void aTableStoppedPartWayAndRequestedAgainEndsEqualToItsRowsDeletesIncluded(PostgresDatabase db,
            @TempDir Path control, @TempDir Path savepoints) throws Exception {
        db.execute(StoppedPartWay.create().toArray(String[]::new));
        db.execute("GRANT SELECT ON t3 TO " + db.replicationUser(), "CREATE PUBLICATION stopreq FOR TABLE t3");
        StoppedPartWay.run(db, "public.t3", control, savepoints, json -> stoppedSource(db, control, json));
    }

    private static CdcSource<String, PostgresPosition, PostgresChunkMark> stoppedSource(PostgresDatabase db,
            Path control, ChangeEventDeserializer<String> deserializer) {
        return CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, "stopreq")))
                .includeTables("public.t3")
                .chunkSize(50)
                .controlPath(control.toUri().toString())
                .controlInterval(Duration.ofMillis(200))
                .deserializer(deserializer)
                .build();
    }

    private static String list(Path dir) {
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).toList().toString();
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    private static CdcSource<String, PostgresPosition, PostgresChunkMark> source(PostgresDatabase db, Path control) {
        return source(db, control, "control");
    }

    private static CdcSource<String, PostgresPosition, PostgresChunkMark> source(PostgresDatabase db, Path control,
            String slot) {
        return CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, slot)))
                .includeTables("public.t1", "public.t2")
                .chunkSize(300)
                .controlPath(control.toUri().toString())
                .controlInterval(Duration.ofMillis(300))
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    private static TableReadout readout(SnapshotControl client, String table) {
        return client.state().stream().filter(t -> t.table().equals(table)).findFirst()
                .orElse(new TableReadout(table, "absent", -1, -1, "none"));
    }

    private static String status(SnapshotControl client, String table) {
        return readout(client, table).status();
    }

    private static ControlResult await(RestorableJob job, JsonChangelog changelog, Inspector inspector,
            SnapshotControl client, String id) throws Exception {
        waitFor(job.records, changelog, inspector, () -> client.result(id).isPresent(), () -> "no result of " + id);
        return client.result(id).orElseThrow();
    }

    interface Inspector {
        void inspect(JsonNode json);
    }

    private static void applyOne(String record, JsonChangelog changelog, Inspector inspector) {
        try {
            inspector.inspect(MAPPER.readTree(record));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        changelog.apply(record);
    }

    private static void drainFor(BlockingQueue<String> records, JsonChangelog changelog, Inspector inspector,
            Duration duration) throws Exception {
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end) {
            String r = records.poll(50, TimeUnit.MILLISECONDS);
            if (r != null) {
                applyOne(r, changelog, inspector);
            }
        }
    }

    private static void waitFor(BlockingQueue<String> records, JsonChangelog changelog, Inspector inspector,
            BooleanSupplier done, Supplier<String> what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out; ops " + changelog.ops() + ", " + what.get());
            }
            String r = records.poll(100, TimeUnit.MILLISECONDS);
            while (r != null) {
                applyOne(r, changelog, inspector);
                r = records.poll();
            }
        }
    }
}
