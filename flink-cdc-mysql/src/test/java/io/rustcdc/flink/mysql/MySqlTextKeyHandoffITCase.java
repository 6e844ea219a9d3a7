package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.ChunkKey;
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
 * The handoff of text-keyed tables split into chunks of 4 rows: VARCHAR of utf8mb4_bin, which the
 * connector orders; VARCHAR of the server's default collation (Oracle MySQL's utf8mb4_0900_ai_ci, NO PAD;
 * MariaDB's uca1400 one), CHAR of utf8mb4_general_ci and (INT, VARCHAR) of utf8mb4_unicode_ci (PAD SPACE),
 * which the server places among the chunks. Writers insert, update, move keys across chunks (to keys the
 * collation holds equal too: 'a' to 'A') and delete while the snapshot runs, with keys drawn from a pool
 * of random collation-stressing strings (case, accents, trailing spaces, punctuation, characters below a
 * space and beyond the BMP): the changelog replayed by key holds exactly the tables' rows, with no row
 * emitted twice and no change of a row never emitted. On Oracle MySQL every chunk is completed from the
 * binlog ({@link ChunkBackfill}), which the server's placement decides the range of too. Seeded: {@code
 * -Drustcdc.keyorder.seed=N} replays the key pool.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(240)
class MySqlTextKeyHandoffITCase {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Map<String, List<String>> KEYS = Map.of("tk", List.of("k"), "tl", List.of("k"),
            "tg", List.of("k"), "tm", List.of("g", "k"));
    private static final List<String> TABLES = List.of("tk", "tl", "tg", "tm");

    @Test
    void textKeyedChunksHandOffExactlyUnderConcurrentWrites(MySqlDatabase db) throws Exception {
        long seed = KeyOrderOracle.seed(getClass());
        Random random = new Random(seed);
        Set<String> distinct = new LinkedHashSet<>();
        while (distinct.size() < 200) {
            distinct.add(RandomText.next(random, 3)); // at most 8 characters: they fit CHAR(10)
        }
        List<String> pool = new ArrayList<>(distinct);
        List<String> setup = new ArrayList<>(List.of("DROP TABLE IF EXISTS tk, tl, tg, tm",
                "CREATE TABLE tk (k VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY, v INT NOT NULL)",
                "CREATE TABLE tl (k VARCHAR(20) CHARACTER SET utf8mb4 PRIMARY KEY, v INT NOT NULL)",
                "CREATE TABLE tg (k CHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci PRIMARY KEY, v INT NOT NULL)",
                "CREATE TABLE tm (g INT, k VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci, v INT NOT NULL, "
                        + "PRIMARY KEY (g, k))"));
        for (String t : TABLES) {
            StringBuilder insert = new StringBuilder("INSERT IGNORE INTO " + t + " VALUES ");
            for (int i = 0; i < pool.size(); i += 2) { // half the pool at first; the writers use all of it
                insert.append(i == 0 ? "(" : ", (").append(t.equals("tm") ? (i % 3) + ", " : "")
                        .append(RandomText.literal(pool.get(i))).append(", 0)");
            }
            setup.add(insert.toString());
        }
        db.execute(setup.toArray(new String[0]));
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        try (var session = connector.openSession()) {
            for (String t : List.of("tl", "tg", "tm")) { // split by the server's order, keys placed by it
                ChunkKey key = ChunkKey.of(session.describe(TableId.of(db.name(), db.name(), t)), connector.keyOrder(),
                        null, "scan.incremental.snapshot.chunk.key-column");
                assertThat(key.splittable() && key.placedByServer()).as(t + " " + key.collations()).isTrue();
            }
        }
        CdcSource<String, MySqlPosition, MySqlPosition> source = CdcSource.builder()
                .connector(connector)
                .includeTables(TABLES.stream().map(t -> db.name() + "." + t).toArray(String[]::new))
                .chunkSize(4)
                .deserializer(ChangeEventDeserializer.json())
                .build();
        JsonChangelog changelog = new JsonChangelog(KEYS);
        try (SourceJob job = new SourceJob(source, 2)) {
            // the writers start with the snapshot, not before it (a slow start would leave the stream nothing)
            job.applyUntil(changelog, () -> !changelog.ops().isEmpty(), Duration.ofSeconds(60));
            try (ConcurrentWriters writers = new ConcurrentWriters(db::admin, 2, 4_000, 2, seed,
                    r -> statement(r, pool))) {
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
                    Duration.ofSeconds(90));
            for (String t : TABLES) {
                assertThat(changelog.rows(t)).as("seed " + seed + ", table " + t + ": "
                        + changelog.differences(t, expected.get(t))).isEqualTo(expected.get(t));
            }
        }
        assertThat(changelog.violations()).as("seed " + seed).isEmpty();
        assertThat(changelog.ops()).containsKeys("read", "insert", "update", "delete");
    }

    private static String statement(Random r, List<String> pool) {
        String table = TABLES.get(r.nextInt(TABLES.size()));
        String text = pool.get(r.nextInt(pool.size()));
        String k = RandomText.literal(text);
        boolean grouped = table.equals("tm");
        String g = grouped ? r.nextInt(3) + ", " : "";
        String where = " WHERE k = " + k + (grouped ? " AND g = " + r.nextInt(3) : "");
        switch (r.nextInt(6)) {
            case 0:
                return "INSERT IGNORE INTO " + table + " VALUES (" + g + k + ", 1)";
            case 1:
                return "UPDATE " + table + " SET v = v + 1" + where;
            case 2:
                // moves the row to another key, mostly in another chunk
                return "UPDATE IGNORE " + table + " SET k = " + RandomText.literal(pool.get(r.nextInt(pool.size())))
                        + (grouped ? ", g = " + r.nextInt(3) : "") + ", v = v + 1" + where;
            case 3:
                // to a key the case-insensitive collations hold equal: the same chunk, another stored value
                return "UPDATE IGNORE " + table + " SET k = " + RandomText.literal(swapCase(text)) + ", v = v + 1" + where;
            case 4:
                return "DELETE FROM " + table + where;
            default:
                return "INSERT INTO " + table + " VALUES (" + g + k + ", 2) ON DUPLICATE KEY UPDATE v = v + 10";
        }
    }

    private static String swapCase(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(c -> b.appendCodePoint(Character.isUpperCase(c) ? Character.toLowerCase(c)
                : Character.toUpperCase(c)));
        return b.toString();
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
