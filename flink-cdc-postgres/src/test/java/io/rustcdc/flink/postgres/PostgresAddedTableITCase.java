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
