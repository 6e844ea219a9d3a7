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
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
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
    private static volatile RuntimeException collectFailure;
    private static final Map<String, List<String>> KEYS = Map.of("t1", List.of("id"), "t2", List.of("a", "b"));

    @Test
    void onlyTheAddedTableIsSnapshottedWhileTheStreamRuns(PostgresDatabase db, @InjectClusterClient ClusterClient<?> client,
            @TempDir Path savepoints) throws Exception {
        Writers.createTables(db, 5000);
        JsonChangelog changelog = new JsonChangelog(KEYS);
        BlockingQueue<String> records = new LinkedBlockingQueue<>();

        Running first = start(source(db, "public.t1"), null, records);
        Map<String, String> t1Before = PostgresSourceITCase.t1(db);
        drainUntil(records, changelog, json -> { }, () -> changelog.rows("t1").equals(t1Before),
                () -> changelog.differences("t1", t1Before));
        String savepoint = client.stopWithSavepoint(first.job.getJobID(), false, savepoints.toUri().toString(),
                SavepointFormatType.CANONICAL).get(60, TimeUnit.SECONDS);
        first.results.close();
        drainUntil(records, changelog, json -> { }, records::isEmpty, () -> records.size() + " records left");

        db.execute("ALTER PUBLICATION added ADD TABLE t2");
        int[] t1Reads = {0};
        try (ConcurrentWriters writers = Writers.start(db, 2, 6_000, 5000)) {
            Running second = start(source(db, "public.t1", "public.t2"), savepoint, records);
            try {
                writers.awaitEnd();
                Map<String, String> t1 = PostgresSourceITCase.t1(db);
                Map<String, String> t2 = PostgresSourceITCase.t2(db);
                drainUntil(records, changelog, json -> {
                    if (json.get("table").asText().equals("t1") && json.get("op").asText().equals("read")) {
                        t1Reads[0]++;
                    }
                }, () -> changelog.rows("t1").equals(t1) && changelog.rows("t2").equals(t2),
                        () -> changelog.differences("t1", t1) + "; " + changelog.differences("t2", t2));
            } finally {
                second.results.close();
                second.job.cancel();
            }
        }
        assertThat(t1Reads[0]).as("t1 is not read again").isZero();
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

    private static final class Running {
        final JobClient job;
        final CloseableIterator<String> results;

        Running(JobClient job, CloseableIterator<String> results) {
            this.job = job;
            this.results = results;
        }
    }

    private static Running start(CdcSource<String, ?, ?> source, String savepoint, BlockingQueue<String> into)
            throws Exception {
        Configuration conf = new Configuration();
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            // the collect sink's operator differs between the jobs; the source keeps its uid
            conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(300);
        CloseableIterator<String> results = env.fromSource(source, WatermarkStrategy.noWatermarks(), "pg")
                .uid("pg-source").collectAsync();
        JobClient job = env.executeAsync();
        Thread t = new Thread(() -> {
            try {
                results.forEachRemaining(into::add);
            } catch (RuntimeException e) {
                collectFailure = e; // also when the test closes the results
            }
        });
        t.setDaemon(true);
        t.start();
        return new Running(job, results);
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
                        + ", " + differences.get() + (collectFailure == null ? "" : ", collecting failed: " + collectFailure));
            }
            String r = records.poll(100, TimeUnit.MILLISECONDS);
            if (r != null) {
                inspector.inspect(MAPPER.readTree(r));
                changelog.apply(r);
            }
        }
    }
}
