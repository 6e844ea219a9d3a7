package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.KeyOrderOracle;
import io.rustcdc.flink.testing.RandomText;
import io.rustcdc.flink.testing.SourceJob;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The handoff of text-keyed tables split into chunks of 4 rows (text and character(8), collation
 * "C"), under writers that insert, update, move keys across chunks and delete, with keys drawn from a
 * pool of random collation-stressing strings (case, accents, trailing spaces, the empty string,
 * characters below a space and beyond the BMP): the changelog replayed by key holds exactly the
 * tables' rows, with no row emitted twice and no change of a row never emitted. Seeded: {@code
 * -Drustcdc.keyorder.seed=N} replays the key pool.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(240)
class PostgresTextKeyHandoffITCase {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Map<String, List<String>> KEYS = Map.of("tk", List.of("k"), "tc", List.of("k"));

    @Test
    void textKeyedChunksHandOffExactlyUnderConcurrentWrites(PostgresDatabase db) throws Exception {
        long seed = KeyOrderOracle.seed(getClass());
        Random random = new Random(seed);
        Set<String> distinct = new LinkedHashSet<>();
        while (distinct.size() < 400) {
            distinct.add(RandomText.next(random, 3)); // at most 8 characters: they fit character(8)
        }
        List<String> pool = new ArrayList<>(distinct);
        List<String> setup = new ArrayList<>(List.of("DROP TABLE IF EXISTS tk, tc",
                "CREATE TABLE tk (k text COLLATE \"C\" PRIMARY KEY, v int NOT NULL)",
                "CREATE TABLE tc (k character(8) COLLATE \"C\" PRIMARY KEY, v int NOT NULL)",
                "ALTER TABLE tk OWNER TO " + db.replicationUser(), "ALTER TABLE tc OWNER TO " + db.replicationUser()));
        for (int i = 0; i < pool.size(); i += 2) { // half the pool at first; the writers use all of it
            String k = RandomText.literal(pool.get(i));
            setup.add("INSERT INTO tk VALUES (" + k + ", 0) ON CONFLICT DO NOTHING");
            setup.add("INSERT INTO tc VALUES (" + k + ", 0) ON CONFLICT DO NOTHING");
        }
        db.execute(setup.toArray(new String[0]));
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, "text_handoff")))
                .includeTables("public.tk", "public.tc")
                .chunkSize(4)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        JsonChangelog changelog = new JsonChangelog(KEYS);
        try (SourceJob job = new SourceJob(source, 2);
                ConcurrentWriters writers = new ConcurrentWriters(db::admin, 2, 6_000, r -> statement(r, pool))) {
            writers.awaitEnd();
            assertThat(writers.transactions()).as("transactions committed").isGreaterThan(100);
            Map<String, Map<String, String>> expected = new HashMap<>();
            try (Connection c = db.admin()) {
                expected.put("tk", rows(c, "tk"));
                expected.put("tc", rows(c, "tc"));
            }
            job.applyUntil(changelog, () -> changelog.rows("tk").equals(expected.get("tk"))
                    && changelog.rows("tc").equals(expected.get("tc")), Duration.ofSeconds(120));
        }
        assertThat(changelog.violations()).as("seed " + seed).isEmpty();
        assertThat(changelog.ops()).containsKeys("read", "insert", "update", "delete");
    }

    private static String statement(Random r, List<String> pool) {
        String table = r.nextBoolean() ? "tk" : "tc";
        String k = RandomText.literal(pool.get(r.nextInt(pool.size())));
        switch (r.nextInt(5)) {
            case 0:
                return "INSERT INTO " + table + " VALUES (" + k + ", 1) ON CONFLICT DO NOTHING";
            case 1:
                return "UPDATE " + table + " SET v = v + 1 WHERE k = " + k;
            case 2:
                // moves the row to another key, mostly in another chunk
                return "UPDATE " + table + " SET k = " + RandomText.literal(pool.get(r.nextInt(pool.size())))
                        + ", v = v + 1 WHERE k = " + k;
            case 3:
                return "DELETE FROM " + table + " WHERE k = " + k;
            default:
                return "INSERT INTO " + table + " VALUES (" + k + ", 2) ON CONFLICT (k) DO UPDATE SET v = " + table
                        + ".v + 10";
        }
    }

    /** The table's rows as {@link JsonChangelog#rows} keys and renders them. */
    private static Map<String, String> rows(Connection c, String table) throws Exception {
        Map<String, String> rows = new HashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT k, v FROM " + table)) {
            while (rs.next()) {
                String k = rs.getString(1);
                rows.put(MAPPER.getNodeFactory().textNode(k).toString() + "|",
                        MAPPER.createObjectNode().put("k", k).put("v", rs.getLong(2)).toString());
            }
        }
        return rows;
    }
}
