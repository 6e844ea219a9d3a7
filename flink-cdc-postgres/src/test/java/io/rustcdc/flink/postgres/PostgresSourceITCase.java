package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.SourceJob;
import io.rustcdc.flink.testing.TwoTables;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The whole source on a Flink MiniCluster against real PostgreSQL. */
@ExtendWith(PostgresExtension.class)
@Timeout(300)
class PostgresSourceITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Map<String, List<String>> KEYS = TwoTables.KEYS;

    @Test
    void parallelSnapshotUnderConcurrentWritesHandsOffExactly(PostgresDatabase db) throws Exception {
        Writers.createTables(db, 3000);
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, "handoff")))
                .includeTables("public.t1", "public.t2")
                .chunkSize(100)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        JsonChangelog changelog = TwoTables.underConcurrentWrites(source,
                () -> Writers.start(db, 2, 6_000, 3000), db::admin);
        assertThat(changelog.violations()).isEmpty();
        assertThat(changelog.ops()).containsKeys("read", "insert", "update", "delete");
    }

    @Test
    void snapshotModeReadsTheTablesAndFinishesWithoutReplicationState(PostgresDatabase db) throws Exception {
        Writers.createTables(db, 500);
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.builder(db).slotName("never_created")
                        .publicationName("never_created").createSlotIfMissing(true).build()))
                .includeTables("public.t*")
                .chunkSize(64)
                .startupMode(StartupMode.snapshot())
                .deserializer(ChangeEventDeserializer.json())
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(3);
        JsonChangelog changelog = new JsonChangelog(KEYS);
        try (CloseableIterator<String> it = env.fromSource(source, WatermarkStrategy.noWatermarks(), "pg").executeAndCollect()) {
            it.forEachRemaining(changelog::apply);
        }
        assertThat(changelog.violations()).isEmpty();
        assertThat(changelog.rows("t1")).isEqualTo(t1(db));
        assertThat(changelog.rows("t2")).isEqualTo(t2(db));
        assertThat(changelog.ops()).containsOnlyKeys("read");
        assertThat(db.queryValue("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'never_created'")).isEqualTo("0");
        assertThat(db.queryValue("SELECT count(*) FROM pg_publication WHERE pubname = 'never_created'")).isEqualTo("0");
    }

    @Test
    void latestSkipsWhatTheSlotHeldAndCommittedDeliversIt(PostgresDatabase db) throws Exception {
        db.execute("CREATE TABLE modes (id int PRIMARY KEY)", "ALTER TABLE modes OWNER TO " + db.replicationUser(),
                "CREATE PUBLICATION modes FOR TABLE modes",
                "SELECT pg_create_logical_replication_slot('modes', 'pgoutput')",
                "INSERT INTO modes VALUES (1), (2)"); // retained by the slot
        assertThat(ids(db, StartupMode.committed(), 3)).containsExactly("insert 1", "insert 2", "insert 3");
        db.execute("INSERT INTO modes VALUES (4), (5)"); // retained again, with no job running
        assertThat(ids(db, StartupMode.latest(), 6)).containsExactly("insert 6");
    }

    /** Starts a stream-only job, inserts {@code next} once it streams, and returns every event until that one. */
    private static List<String> ids(PostgresDatabase db, StartupMode mode, int next) throws Exception {
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.builder(db).slotName("modes")
                        .publicationName("modes").build()))
                .startupMode(mode)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        List<String> seen = new ArrayList<>();
        try (SourceJob consumer = new SourceJob(source, 1)) {
            io.rustcdc.flink.testing.Poll.until("the stream", Duration.ofSeconds(60), () -> "t".equals(db.queryValue(
                    "SELECT active FROM pg_replication_slots WHERE slot_name = 'modes'")));
            Thread.sleep(500);
            db.execute("INSERT INTO modes VALUES (" + next + ")");
            while (seen.isEmpty() || !seen.get(seen.size() - 1).equals("insert " + next)) {
                String r = consumer.records.poll(60, TimeUnit.SECONDS);
                assertThat(r).as("an event within a minute; so far " + seen).isNotNull();
                var json = MAPPER.readTree(r);
                seen.add(json.get("op").asText() + " " + json.get("after").get("id").asText());
            }
        }
        return seen;
    }

    static Map<String, String> t1(PostgresDatabase db) throws Exception {
        try (Connection c = db.admin()) {
            return TwoTables.t1(c);
        }
    }

    static Map<String, String> t2(PostgresDatabase db) throws Exception {
        try (Connection c = db.admin()) {
            return TwoTables.t2(c);
        }
    }
}
