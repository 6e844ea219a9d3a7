package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.testing.ChunkedReads;
import io.rustcdc.flink.testing.KeyOrderOracle;
import io.rustcdc.flink.testing.RandomText;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Text keys of binary UTF-8 collations against the server: random strings that stress collations
 * (case, accents, trailing spaces, characters below a space, beyond the BMP, the empty string) in
 * VARCHAR and CHAR of {@code utf8mb4_bin} and {@code utf8mb3_bin} (PAD SPACE) and VARCHAR of the NO
 * PAD binary collation ({@code utf8mb4_0900_bin} on MySQL, {@code utf8mb4_nopad_bin} on MariaDB),
 * compared pairwise by {@link MySqlKeyOrder} and by the server's {@code ORDER BY}, then split into
 * chunks of 3 rows whose bounds the server found: each row lies in exactly the chunk the server's
 * range predicate read it in. Text of linguistic collations (case- and accent-insensitive, PAD SPACE
 * and NO PAD, the test servers' default among them), alone and after an int, is split too, by the
 * server's order, and each row placed by the server ({@link MySqlKeyPlacement}) in the chunk that read it.
 * Seeded: {@code -Drustcdc.keyorder.seed=N} replays a run.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(180)
class MySqlTextKeyOrderITCase {
    private static final int ROWS = 150;
    private static final String OPTION = "scan.incremental.snapshot.chunk.key-column";

    @Test
    void textOfBinaryCollationsIsOrderedAsTheServerOrdersIt(MySqlDatabase db) throws SQLException {
        long seed = KeyOrderOracle.seed(getClass());
        Random random = new Random(seed);
        Map<String, String> columns = new LinkedHashMap<>();
        columns.put("t_bin", "VARCHAR(60) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        columns.put("t_char", "CHAR(14) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        columns.put("t_mb3", "VARCHAR(60) CHARACTER SET utf8mb3 COLLATE utf8mb3_bin");
        columns.put("t_nopad", "VARCHAR(60) CHARACTER SET utf8mb4 COLLATE " + noPadBinary(db));
        StringBuilder create = new StringBuilder("CREATE TABLE texts (id INT PRIMARY KEY");
        columns.forEach((name, type) -> create.append(", ").append(name).append(' ').append(type));
        List<String> statements = new ArrayList<>(List.of("DROP TABLE IF EXISTS texts", create.append(')').toString()));
        List<String> earlier = new ArrayList<>();
        for (int id = 0; id < ROWS; id++) {
            StringBuilder row = new StringBuilder("INSERT INTO texts VALUES (" + id);
            for (String column : columns.keySet()) {
                String text = RandomText.next(random, 6);
                if (column.equals("t_mb3")) {
                    text = bmpOnly(text); // utf8mb3 holds no supplementary characters
                }
                String literal = random.nextInt(15) == 0 ? "NULL" : RandomText.literal(text);
                if (id > 0 && random.nextInt(8) == 0) {
                    literal = earlier.get(random.nextInt(id) * columns.size() + earlier.size() % columns.size()); // ties
                }
                earlier.add(literal);
                row.append(", ").append(literal);
            }
            statements.add(row.append(')').toString());
        }
        db.execute(statements.toArray(new String[0]));

        TableId table = TableId.of(db.name(), db.name(), "texts");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            TableDescription description = session.describe(table);
            Map<String, Map<Integer, Object>> decoded = new HashMap<>();
            session.readChunk(description, List.of("id"), null, null, e -> {
                int id = ((Long) e.after().get("id")).intValue();
                columns.keySet().forEach(c -> decoded.computeIfAbsent(c, k -> new HashMap<>()).put(id, e.after().get(c)));
            });
            RowType rowType = description.rowType();
            int pairs = 0;
            for (Map.Entry<String, String> c : columns.entrySet()) {
                int field = rowType.indexOf(c.getKey());
                pairs += KeyOrderOracle.check(connector.keyOrder(), c.getKey() + " " + c.getValue(), rowType.type(field),
                        description.collation(field), decoded.get(c.getKey()), ranks(db, c.getKey()), seed);
            }
            assertThat(pairs).isEqualTo(columns.size() * ROWS * ROWS);
        }
    }

    @Test
    void textKeysSplitIntoChunksOfTheServersRanges(MySqlDatabase db) {
        long seed = KeyOrderOracle.seed(getClass());
        Random random = new Random(seed);
        String noPad = noPadBinary(db);
        List<String> statements = new ArrayList<>(List.of("DROP TABLE IF EXISTS pad_keyed", "DROP TABLE IF EXISTS nopad_keyed",
                "DROP TABLE IF EXISTS pair_keyed", "DROP TABLE IF EXISTS ci_keyed",
                "CREATE TABLE pad_keyed (k VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY, v INT)",
                "CREATE TABLE nopad_keyed (k VARCHAR(40) CHARACTER SET utf8mb4 COLLATE " + noPad + " PRIMARY KEY, v INT)",
                "CREATE TABLE pair_keyed (a INT, b CHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, v INT, "
                        + "PRIMARY KEY (a, b))",
                "CREATE TABLE ci_keyed (k VARCHAR(40) PRIMARY KEY, v INT)"));
        for (int i = 0; i < 120; i++) {
            String text = RandomText.literal(RandomText.next(random, 4));
            // PAD SPACE: 'a' and 'a ' are one key, so duplicates are skipped
            statements.add("INSERT IGNORE INTO pad_keyed VALUES (" + text + ", " + i + ")");
            statements.add("INSERT IGNORE INTO nopad_keyed VALUES (" + text + ", " + i + ")");
            statements.add("INSERT IGNORE INTO pair_keyed VALUES (" + random.nextInt(3) + ", " + text + ", " + i + ")");
            statements.add("INSERT IGNORE INTO ci_keyed VALUES (" + text + ", " + i + ")");
        }
        db.execute(statements.toArray(new String[0]));
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            for (String name : List.of("pad_keyed", "nopad_keyed", "pair_keyed")) {
                TableDescription table = session.describe(TableId.of(db.name(), db.name(), name));
                ChunkKey key = ChunkKey.of(table, connector.keyOrder(), null, OPTION);
                assertThat(key.splittable()).as(name + " " + key.collations()).isTrue();
                int count = Integer.parseInt(db.queryValue("SELECT COUNT(*) FROM " + name));
                assertThat(ChunkedReads.countInChunks(session, table, key, 3)).as(name + " (seed " + seed + ")").isEqualTo(count);
            }
            TableDescription ci = session.describe(TableId.of(db.name(), db.name(), "ci_keyed"));
            ChunkKey key = ChunkKey.of(ci, connector.keyOrder(), null, OPTION);
            assertThat(key.splittable() && key.placedByServer()).as("the server's default collation: "
                    + key.collations()).isTrue();
            int count = Integer.parseInt(db.queryValue("SELECT COUNT(*) FROM ci_keyed"));
            assertThat(ChunkedReads.countInChunks(session, ci, key, 3)).as("ci_keyed (seed " + seed + ")").isEqualTo(count);
        }
    }

    /**
     * CHAR and VARCHAR of linguistic collations (utf8mb4_general_ci and utf8mb4_unicode_ci, PAD SPACE;
     * Oracle MySQL's utf8mb4_0900_ai_ci and utf8mb4_0900_as_cs, NO PAD; MariaDB's utf8mb4_uca1400_ai_ci and
     * its NO PAD variant), alone and after an int, keyed by strings whose bytes sort otherwise than the
     * collation does (case, accents, trailing spaces, punctuation, characters below a space): split into
     * chunks of 3 by the server's order, and every row placed by the server in the chunk that read it.
     */
    @Test
    void textOfLinguisticCollationsIsSplitAndPlacedByTheServer(MySqlDatabase db) {
        long seed = KeyOrderOracle.seed(getClass()) + 2;
        Random random = new Random(seed);
        boolean mariaDb = db.queryValue("SELECT VERSION()").contains("MariaDB");
        List<String> collations = new ArrayList<>(List.of("utf8mb4_general_ci", "utf8mb4_unicode_ci"));
        collations.addAll(mariaDb ? List.of("utf8mb4_uca1400_ai_ci", "utf8mb4_uca1400_nopad_as_cs")
                : List.of("utf8mb4_0900_ai_ci", "utf8mb4_0900_as_cs"));
        List<String> tables = new ArrayList<>();
        List<String> statements = new ArrayList<>();
        for (int c = 0; c < collations.size(); c++) {
            String type = "CHARACTER SET utf8mb4 COLLATE " + collations.get(c);
            String single = "ling_" + c;
            String pair = "ling_pair_" + c;
            tables.addAll(List.of(single, pair));
            statements.addAll(List.of("DROP TABLE IF EXISTS " + single, "DROP TABLE IF EXISTS " + pair,
                    "CREATE TABLE " + single + " (k " + (c == 0 ? "CHAR(20) " : "VARCHAR(40) ") + type + " PRIMARY KEY)",
                    "CREATE TABLE " + pair + " (a INT, k VARCHAR(40) " + type + ", PRIMARY KEY (a, k))"));
            StringBuilder singles = new StringBuilder("INSERT IGNORE INTO " + single + " VALUES ");
            StringBuilder pairs = new StringBuilder("INSERT IGNORE INTO " + pair + " VALUES ");
            for (int i = 0; i < 30; i++) { // one statement a table: Oracle MySQL's test server commits slowly
                String text = RandomText.literal(RandomText.next(random, 4));
                singles.append(i == 0 ? "(" : ", (").append(text).append(')');
                pairs.append(i == 0 ? "(" : ", (").append(random.nextInt(3)).append(", ").append(text).append(')');
            }
            statements.addAll(List.of(singles.toString(), pairs.toString()));
        }
        if (mariaDb) { // a UUID before the text: the server places it, as it stores it (node first for version 1)
            tables.add("ling_uuid");
            StringBuilder uuids = new StringBuilder("INSERT IGNORE INTO ling_uuid VALUES ");
            for (int i = 0; i < 30; i++) {
                uuids.append(i == 0 ? "(" : ", (").append(i % 2 == 0 ? "UUID()" : "'0000000" + (i % 4) + "-0000-7000-8000-"
                        + "000000000000'").append(", ").append(RandomText.literal(RandomText.next(random, 4))).append(')');
            }
            statements.addAll(List.of("DROP TABLE IF EXISTS ling_uuid", "CREATE TABLE ling_uuid (u UUID, k VARCHAR(40) "
                    + "CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci, PRIMARY KEY (u, k))", uuids.toString()));
        }
        if (mariaDb) { // dates and times before the text, zero dates among them (a sql_mode that allows them;
            // Oracle MySQL's default NO_ZERO_DATE fails a chunk read of a zero-date key: docs/mysql.md)
            tables.add("ling_dated");
            StringBuilder dated = new StringBuilder("INSERT IGNORE INTO ling_dated VALUES ");
            String[] days = {"0000-00-00", "0000-01-01", "2024-00-00", "2024-05-00", "2024-05-01", "0999-12-31"};
            String[] times = {"0000-00-00 00:00:00", "2024-00-00 10:00:00", "2024-05-01 10:00:00.5",
                "2024-05-01 10:00:00.25", "0000-01-01 00:00:00.000001", "2024-05-01 09:59:59.999999"};
            for (int i = 0; i < 30; i++) {
                dated.append(i == 0 ? "(" : ", (").append('\'').append(days[random.nextInt(days.length)])
                        .append("', '").append(times[random.nextInt(times.length)]).append("', ")
                        .append(RandomText.literal(RandomText.next(random, 2))).append(')');
            }
            statements.addAll(List.of("SET SESSION sql_mode = ''", "DROP TABLE IF EXISTS ling_dated", "CREATE TABLE "
                    + "ling_dated (d DATE, t DATETIME(6), k VARCHAR(40) CHARACTER SET utf8mb4 COLLATE "
                    + "utf8mb4_general_ci, PRIMARY KEY (d, t, k))", dated.toString()));
        }
        db.execute(statements.toArray(new String[0]));
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            for (String name : tables) {
                TableDescription table = session.describe(TableId.of(db.name(), db.name(), name));
                ChunkKey key = ChunkKey.of(table, connector.keyOrder(), null, OPTION);
                assertThat(key.splittable() && key.placedByServer()).as(name + " " + key.collations()).isTrue();
                int count = Integer.parseInt(db.queryValue("SELECT COUNT(*) FROM " + name));
                assertThat(ChunkedReads.countInChunks(session, table, key, 3)).as(name + " " + key.collations()
                        + " (seed " + seed + ")").isEqualTo(count);
            }
        }
    }

    /** The binary NO PAD collation of utf8mb4: Oracle MySQL's utf8mb4_0900_bin, MariaDB's utf8mb4_nopad_bin. */
    private static String noPadBinary(MySqlDatabase db) {
        return db.queryValue("SELECT VERSION()").contains("MariaDB") ? "utf8mb4_nopad_bin" : "utf8mb4_0900_bin";
    }

    private static String bmpOnly(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().filter(c -> c <= 0xffff).forEach(b::appendCodePoint);
        return b.toString();
    }

    private static Map<Integer, Long> ranks(MySqlDatabase db, String column) throws SQLException {
        Map<Integer, Long> ranks = new HashMap<>();
        try (Connection c = db.admin();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, DENSE_RANK() OVER (ORDER BY " + column + ") FROM texts")) {
            while (rs.next()) {
                ranks.put(rs.getInt(1), rs.getLong(2));
            }
        }
        return ranks;
    }
}
