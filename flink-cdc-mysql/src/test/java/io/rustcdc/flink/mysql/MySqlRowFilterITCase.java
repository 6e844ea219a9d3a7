package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.KeyFilterOracle;
import io.rustcdc.flink.testing.SourceJob;
import io.rustcdc.flink.testing.TwoTables;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A row filter on MySQL/MariaDB: the database judges it, chunks are planned and read with it, and a
 * snapshot of t1 filtered on its key ({@code id % 3 = 0}) under writers that move keys across the filter
 * gives the exact changelog of {@link KeyFilterOracle}; t2, unfiltered, stays exact.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(300)
class MySqlRowFilterITCase {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    @Test
    void aFilteredSnapshotUnderWritersDeliversTheFilteredRowsAndEveryChange(MySqlDatabase db) throws Exception {
        MySqlFeatures.assumeSnapshot(db.server());
        MySqlWriters.createTables(db, 3000);
        try (CatalogSession<MySqlPosition, MySqlPosition> s = MySqlConnector.create(MySqlTestConfigs.config(db))
                .openSession()) {
            TableDescription t1 = s.describe(TableId.of(db.name(), db.name(), "t1"));
            assertThat(s.rowFilterProblem(t1, "n > 3 AND v LIKE 'v%'")).isNull();
            assertThat(s.rowFilterProblem(t1, "nope = 1")).contains("nope");
            // a condition that would close the chunk query's parenthesis, escaping its key range (found by a probe:
            // chunks read rows of other chunks again), one that opens one it does not close; a trailing comment, which hides
            // the parenthesis (refused before too)
            assertThat(s.rowFilterProblem(t1, "n = 0) OR (id = 1")).contains("syntax");
            assertThat(s.rowFilterProblem(t1, "(n = 0 OR n = 2")).contains("syntax");
            assertThat(s.rowFilterProblem(t1, "n = 0 # the even ones")).contains("syntax");
            assertThat(s.rowFilterProblem(t1, "(n = 0) OR (n = 2)")).isNull();
            Object[] first = s.nextChunkEnd(t1, List.of("id"), null, 2, "id % 2 = 1");
            assertThat(((Number) first[0]).longValue()).isEqualTo(3);
            Object[] second = s.nextChunkEnd(t1, List.of("id"), first, 2, "id % 2 = 1");
            assertThat(((Number) second[0]).longValue()).isEqualTo(7);
            List<Long> ids = new ArrayList<>();
            Object[] nine = {first[0] instanceof Long ? (Object) 9L : (Object) 9};
            s.readChunk(t1, List.of("id"), first, nine, "id % 2 = 1 OR n = 4",
                    e -> ids.add(((Number) e.after().get("id")).longValue()));
            assertThat(ids).containsExactly(4L, 5L, 7L, 9L);
        }

        IntPredicate filter = k -> k % 3 == 0;
        CdcSource<String, MySqlPosition, MySqlPosition> source = CdcSource.builder()
                .connector(MySqlConnector.create(MySqlTestConfigs.config(db)))
                .includeTables(db.name() + ".t1", db.name() + ".t2")
                .rowFilter(db.name() + ".t1", "id % 3 = 0")
                .chunkSize(100)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        JsonChangelog changelog = new JsonChangelog(TwoTables.KEYS);
        List<Integer> t1Reads = new ArrayList<>();
        try (SourceJob job = new SourceJob(source, 2);
                // changes all along the snapshot, not many of them: each is parsed here twice
                ConcurrentWriters writers = MySqlWriters.start(db, 2, 10_000, 3000, 15)) {
            writers.awaitEnd();
            Map<String, String> t1 = MySqlSourceITCase.t1(db);
            Map<String, String> t2 = MySqlSourceITCase.t2(db);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (!(KeyFilterOracle.converged(changelog, "t1", t1, filter) && changelog.rows("t2").equals(t2))) {
                assertThat(System.nanoTime()).as(changelog.differences("t1", KeyFilterOracle.matching(t1, filter)))
                        .isLessThan(deadline);
                String r = job.records.poll(100, TimeUnit.MILLISECONDS);
                if (r != null) {
                    JsonNode json = MAPPER.readTree(r);
                    if (json.get("table").asText().equals("t1") && json.get("op").asText().equals("read")) {
                        t1Reads.add(json.get("after").get("id").asInt());
                    }
                    changelog.apply(r);
                }
            }
            KeyFilterOracle.assertExact(changelog, "t1", t1, filter);
        }
        assertThat(changelog.ops()).containsKeys("read", "update", "delete");
        assertThat(changelog.violations()).as("t2 is exact; t1's only violations are changes of rows outside the "
                + "filter, which downstream never saw").allSatisfy(v -> assertThat(KeyFilterOracle.outside(v, "t1",
                        filter)).as(v).isTrue()).isNotEmpty();
        assertThat(t1Reads).as("only rows of the filter are read").isNotEmpty().allSatisfy(k -> assertThat(k % 3).isZero());
    }
}
