package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.testing.ConcurrentWriters;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.KeyChangedWhileWaiting;
import io.rustcdc.flink.testing.KeyOrderOracle;
import io.rustcdc.flink.testing.RandomText;
import io.rustcdc.flink.testing.ReadGate;
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
 * The handoff of text-keyed tables split into chunks of 4 rows (text and character(8) of collation
 * "C", which the connector orders; text of an ICU collation and (int, text) of a nondeterministic,
 * case-insensitive ICU collation, which PostgreSQL places among the chunks), under writers that
 * insert, update, move keys across chunks and delete, with keys drawn from a pool of random
 * collation-stressing strings (case, accents, trailing spaces, the empty string,
 * characters below a space and beyond the BMP): the changelog replayed by key holds exactly the
 * tables' rows, with no row emitted twice and no change of a row never emitted. Seeded: {@code
 * -Drustcdc.keyorder.seed=N} replays the key pool.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(240)
class PostgresTextKeyHandoffITCase {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Map<String, List<String>> KEYS = Map.of("tk", List.of("k"), "tc", List.of("k"),
            "tl", List.of("k"), "tm", List.of("g", "k"));
    private static final List<String> TABLES = List.of("tk", "tc", "tl", "tm");

    @Test
    void textKeyedChunksHandOffExactlyUnderConcurrentWrites(PostgresDatabase db) throws Exception {
        long seed = KeyOrderOracle.seed(getClass());
        Random random = new Random(seed);
        Set<String> distinct = new LinkedHashSet<>();
        while (distinct.size() < 400) {
            distinct.add(RandomText.next(random, 3)); // at most 8 characters: they fit character(8)
        }
        List<String> pool = new ArrayList<>(distinct);
        List<String> setup = new ArrayList<>(List.of("DROP TABLE IF EXISTS tk, tc, tl, tm",
                // linguistic orders: accents and case after letters, punctuation and spaces ignored at first
                "CREATE COLLATION IF NOT EXISTS en_icu (provider = icu, locale = 'en-US')",
                "CREATE COLLATION IF NOT EXISTS ci_icu (provider = icu, locale = 'und-u-ks-level2', deterministic = false)",
                "CREATE TABLE tk (k text COLLATE \"C\" PRIMARY KEY, v int NOT NULL)",
                "CREATE TABLE tc (k character(8) COLLATE \"C\" PRIMARY KEY, v int NOT NULL)",
                "CREATE TABLE tl (k text COLLATE en_icu PRIMARY KEY, v int NOT NULL)",
                "CREATE TABLE tm (g int, k text COLLATE ci_icu, v int NOT NULL, PRIMARY KEY (g, k))"));
        TABLES.forEach(t -> setup.add("ALTER TABLE " + t + " OWNER TO " + db.replicationUser()));
        for (int i = 0; i < pool.size(); i += 2) { // half the pool at first; the writers use all of it
            String k = RandomText.literal(pool.get(i));
            for (String t : TABLES) {
                setup.add("INSERT INTO " + t + " VALUES (" + (t.equals("tm") ? (i % 3) + ", " : "") + k
                        + ", 0) ON CONFLICT DO NOTHING");
            }
        }
        db.execute(setup.toArray(new String[0]));
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.streaming(db, "text_handoff"));
        try (var session = connector.openSession()) {
            for (String t : List.of("tl", "tm")) { // split, by the server's order: several chunks, keys placed by it
                ChunkKey key = ChunkKey.of(session.describe(TableId.of(db.name(), "public", t)), connector.keyOrder(),
                        null, "scan.chunk.key-column");
                assertThat(key.splittable() && key.placedByServer()).as(t + " " + key).isTrue();
            }
        }
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(connector)
                .includeTables("public.tk", "public.tc", "public.tl", "public.tm")
                .chunkSize(4)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        JsonChangelog changelog = new JsonChangelog(KEYS);
        try (SourceJob job = new SourceJob(source, 2)) {
            // the writers start with the snapshot, not before it (a slow start would leave the stream nothing)
            job.applyUntil(changelog, () -> !changelog.ops().isEmpty(), Duration.ofSeconds(60));
            try (ConcurrentWriters writers = new ConcurrentWriters(db::admin, 2, 6_000, r -> statement(r, pool))) {
                writers.awaitEnd();
                assertThat(writers.transactions()).as("transactions committed").isGreaterThan(100);
            }
            Map<String, Map<String, String>> expected = new HashMap<>();
            try (Connection c = db.admin()) {
                for (String t : TABLES) {
                    expected.put(t, rows(c, t));
                }
            }
            job.applyUntil(changelog, () -> TABLES.stream().allMatch(t -> changelog.rows(t).equals(expected.get(t))),
                    Duration.ofSeconds(120));
            for (String t : TABLES) {
                assertThat(changelog.rows(t)).as("seed " + seed + ", table " + t + ": "
                        + changelog.differences(t, expected.get(t))).isEqualTo(expected.get(t));
            }
        }
        assertThat(changelog.violations()).as("seed " + seed).isEmpty();
        assertThat(changelog.ops()).containsKeys("read", "insert", "update", "delete");
    }

    private static String statement(Random r, List<String> pool) {
        return statement(r, pool, TABLES.get(r.nextInt(TABLES.size())));
    }

    private static String statement(Random r, List<String> pool, String table) {
        String k = RandomText.literal(pool.get(r.nextInt(pool.size())));
        boolean grouped = table.equals("tm");
        String g = grouped ? r.nextInt(3) + ", " : "";
        String where = " WHERE k = " + k + (grouped ? " AND g = " + r.nextInt(3) : "");
        switch (r.nextInt(5)) {
            case 0:
                return "INSERT INTO " + table + " VALUES (" + g + k + ", 1) ON CONFLICT DO NOTHING";
            case 1:
                return "UPDATE " + table + " SET v = v + 1" + where;
            case 2:
                // moves the row to another key, mostly in another chunk (in tm maybe to the same key in another case)
                return "UPDATE " + table + " SET k = " + RandomText.literal(pool.get(r.nextInt(pool.size())))
                        + (grouped ? ", g = " + r.nextInt(3) : "") + ", v = v + 1" + where;
            case 3:
                return "DELETE FROM " + table + where;
            default:
                return "INSERT INTO " + table + " VALUES (" + g + k + ", 2) ON CONFLICT (" + (grouped ? "g, " : "")
                        + "k) DO UPDATE SET v = " + table + ".v + 10";
        }
    }

    /**
     * A table keyed by text of an ICU collation, created while the stream runs: its chunks are read between
     * stream batches while writers change it, so changes of keys whose chunk is not read yet are left out
     * for that chunk to show, which the server's placement checks when the chunk arrives (a change the
     * chunk does not show fails the source); the changelog replayed is the table's content.
     */
    @Test
    void aTableAddedWhileStreamingIsPlacedByTheServer(PostgresDatabase db) throws Exception {
        long seed = KeyOrderOracle.seed(getClass()) + 1;
        Random random = new Random(seed);
        Set<String> distinct = new LinkedHashSet<>();
        while (distinct.size() < 300) {
            distinct.add(RandomText.next(random, 3));
        }
        List<String> pool = new ArrayList<>(distinct);
        db.execute("DROP TABLE IF EXISTS ts, ta", "CREATE COLLATION IF NOT EXISTS en_icu (provider = icu, locale = 'en-US')",
                "CREATE TABLE ts (k text COLLATE \"C\" PRIMARY KEY, v int NOT NULL)",
                "ALTER TABLE ts OWNER TO " + db.replicationUser(), "INSERT INTO ts VALUES ('a', 0)",
                "CREATE PUBLICATION text_added FOR ALL TABLES"); // so that the table created later is published
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, "text_added")))
                .includeTables("public.ts", "public.ta")
                .chunkSize(4)
                .tableDiscoveryInterval(Duration.ofSeconds(1))
                .deserializer(ChangeEventDeserializer.json())
                .build();
        JsonChangelog changelog = new JsonChangelog(Map.of("ts", List.of("k"), "ta", List.of("k")));
        try (SourceJob job = new SourceJob(source, 1)) {
            db.execute("INSERT INTO ts VALUES ('b', 0)");
            job.applyUntil(changelog, () -> changelog.rows("ts").size() == 2, Duration.ofSeconds(60)); // streaming
            List<String> create = new ArrayList<>(List.of("CREATE TABLE ta (k text COLLATE en_icu PRIMARY KEY, "
                    + "v int NOT NULL)", "ALTER TABLE ta OWNER TO " + db.replicationUser()));
            for (int i = 0; i < pool.size(); i += 2) {
                create.add("INSERT INTO ta VALUES (" + RandomText.literal(pool.get(i)) + ", 0) ON CONFLICT DO NOTHING");
            }
            db.execute(create.toArray(new String[0]));
            try (ConcurrentWriters writers = new ConcurrentWriters(db::admin, 2, 4_000, 3, seed,
                    r -> statement(r, pool, "ta"))) {
                writers.awaitEnd();
            }
            Map<String, String> expected;
            try (Connection c = db.admin()) {
                expected = rows(c, "ta");
            }
            job.applyUntil(changelog, () -> changelog.rows("ta").equals(expected), Duration.ofSeconds(90));
        }
        assertThat(changelog.violations()).as("seed " + seed).isEmpty();
        assertThat(changelog.ops()).containsKeys("read", "insert", "update", "delete");
    }

    /**
     * A table whose text key's collation changes ("C", where upper case sorts first, to an ICU collation, where case
     * counts last) while it waits behind another table's snapshot, changed before and after that: its chunks are planned
     * and read in the new order, and the changelog ends equal to the table. Before, the planner kept the key described
     * at the job's start and the table's first chunk read failed ({@code STATE}).
     */
    @Test
    void aTableWhoseKeyCollationChangedWhileItWaitedIsSnapshottedInTheNewOrder(PostgresDatabase db) throws Exception {
        db.execute("DROP TABLE IF EXISTS wa, wb", "CREATE COLLATION IF NOT EXISTS en_icu (provider = icu, locale = 'en-US')",
                "CREATE TABLE wa (id int PRIMARY KEY)", "INSERT INTO wa VALUES (1), (2), (3)",
                "CREATE TABLE wb (k text COLLATE \"C\" PRIMARY KEY, v int NOT NULL)",
                "INSERT INTO wb VALUES " + KeyChangedWhileWaiting.rows(),
                "ALTER TABLE wa OWNER TO " + db.replicationUser(), "ALTER TABLE wb OWNER TO " + db.replicationUser());
        KeyChangedWhileWaiting.run(db, CdcSource.builder()
                .connector(PostgresConnector.create(PostgresTestConfigs.streaming(db, "waiting_key")))
                .includeTables("public.wa", "public.wb")
                .chunkSize(4)
                .deserializer(new ReadGate())
                .build(), "ALTER TABLE wb ALTER COLUMN k TYPE text COLLATE en_icu");
    }

    /**
     * A key column whose collation changed after the table's chunks were planned, the stream still handing off from
     * them: a session that placed keys before the change goes on placing them in the planned collation, and one that
     * would have to read the column's collation after it fails the source naming the table and both collations,
     * rather than placing the keys in the new one.
     */
    @Test
    void keysOfAColumnWhoseCollationChangedAreNotPlacedInTheNewOne(PostgresDatabase db) throws Exception {
        db.execute("DROP TABLE IF EXISTS pc", "CREATE COLLATION IF NOT EXISTS en_icu (provider = icu, locale = 'en-US')",
                "CREATE TABLE pc (k text COLLATE en_icu PRIMARY KEY, v int NOT NULL)");
        PostgresConnector connector = PostgresConnector.create(PostgresTestConfigs.streaming(db, "placed_collation"));
        TableId table = TableId.of(db.name(), "public", "pc");
        List<Object[]> bounds = List.<Object[]>of(new Object[] {"B"});
        List<Object[]> keys = List.<Object[]>of(new Object[] {"a"});
        try (var session = connector.openSession()) {
            ChunkKey key = ChunkKey.of(session.describe(table), connector.keyOrder(), null, "chunk-key");
            assertThat(key.placedByServer()).isTrue();
            assertThat(session.placeKeys(table, key.columns(), key.types(), key.collations(), bounds, keys))
                    .as("'a' < 'B' in en_icu").containsExactly(0);
            db.execute("ALTER TABLE pc ALTER COLUMN k TYPE text COLLATE \"C\"");
            assertThat(session.placeKeys(table, key.columns(), key.types(), key.collations(), bounds, keys))
                    .as("as before the change, in the planned collation").containsExactly(0);
            try (var fresh = connector.openSession()) {
                assertThatThrownBy(() -> fresh.placeKeys(table, key.columns(), key.types(), key.collations(), bounds, keys))
                        .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                        .hasMessageContaining("table public.pc").hasMessageContaining("en_icu")
                        .hasMessageContaining("(collation C)");
            }
        }
    }

    /** The table's rows as {@link JsonChangelog#rows} keys and renders them. */
    private static Map<String, String> rows(Connection c, String table) throws Exception {
        Map<String, String> rows = new HashMap<>();
        boolean grouped = table.equals("tm");
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT k, v" + (grouped ? ", g" : "") + " FROM " + table)) {
            while (rs.next()) {
                String k = rs.getString(1);
                String key = MAPPER.getNodeFactory().textNode(k).toString() + "|";
                com.fasterxml.jackson.databind.node.ObjectNode row = MAPPER.createObjectNode();
                if (grouped) {
                    key = rs.getInt(3) + "|" + key;
                    row.put("g", rs.getInt(3));
                }
                rows.put(key, row.put("k", k).put("v", rs.getLong(2)).toString());
            }
        }
        return rows;
    }
}
