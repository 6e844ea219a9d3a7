package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.model.ChangeEvent;
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
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Text keys of byte-comparing collations against the server: random strings that stress collations
 * (case, accents, trailing spaces, the empty string, characters below a space, beyond the BMP) in
 * text, varchar, character(n) and name columns of the collations {@code "C"}, {@code "POSIX"}, {@code
 * ucs_basic}, the database's default (C in the test servers) and, on PostgreSQL 17, {@code pg_c_utf8};
 * compared pairwise by {@link PostgresKeyOrder} and by the server's {@code ORDER BY}, then split into
 * chunks of 3 rows whose bounds the server found: each row lies in exactly the chunk the server's
 * range predicate read it in. Seeded: {@code -Drustcdc.keyorder.seed=N} replays a run.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(180)
class PostgresTextKeyOrderITCase {
    private static final int ROWS = 150;
    private static final String OPTION = "scan.incremental.snapshot.chunk.key-column";

    @Test
    void textOfByteComparingCollationsIsOrderedAsTheServerOrdersIt(PostgresDatabase db) throws SQLException {
        long seed = KeyOrderOracle.seed(getClass());
        Random random = new Random(seed);
        Map<String, String> columns = new java.util.LinkedHashMap<>();
        columns.put("t_c", "text COLLATE \"C\"");
        columns.put("t_posix", "varchar(60) COLLATE \"POSIX\"");
        columns.put("t_ucs", "text COLLATE ucs_basic");
        columns.put("t_char", "character(14) COLLATE \"C\"");
        columns.put("t_name", "name");
        columns.put("t_default", "text");
        if (db.server().majorVersion() >= 17) {
            columns.put("t_builtin", "text COLLATE pg_c_utf8");
        }
        StringBuilder create = new StringBuilder("CREATE TABLE texts (id int PRIMARY KEY");
        columns.forEach((name, type) -> create.append(", ").append(name).append(' ').append(type));
        db.execute("DROP TABLE IF EXISTS texts", create.append(')').toString(),
                "GRANT SELECT ON texts TO " + db.replicationUser());
        List<String> inserts = new ArrayList<>();
        List<String> earlier = new ArrayList<>();
        for (int id = 0; id < ROWS; id++) {
            StringBuilder row = new StringBuilder("INSERT INTO texts VALUES (" + id);
            for (int i = 0; i < columns.size(); i++) {
                String literal = random.nextInt(15) == 0 ? "NULL" : RandomText.literal(RandomText.next(random, 6));
                if (id > 0 && random.nextInt(8) == 0) {
                    literal = earlier.get(random.nextInt(id) * columns.size() + i); // ties
                }
                earlier.add(literal);
                row.append(", ").append(literal);
            }
            inserts.add(row.append(')').toString());
        }
        db.execute(inserts.toArray(new String[0]));

        TableId table = TableId.of(db.name(), "public", "texts");
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = session(db)) {
            TableDescription description = session.describe(table);
            Map<String, Map<Integer, Object>> decoded = new HashMap<>();
            List<ChangeEvent> rows = new ArrayList<>();
            session.readChunk(description, List.of("id"), null, null, rows::add);
            for (ChangeEvent e : rows) {
                int id = ((Long) e.after().get("id")).intValue();
                columns.keySet().forEach(c -> decoded.computeIfAbsent(c, k -> new HashMap<>()).put(id, e.after().get(c)));
            }
            RowType rowType = description.rowType();
            int pairs = 0;
            for (Map.Entry<String, String> c : columns.entrySet()) {
                int field = rowType.indexOf(c.getKey());
                assertThat(PostgresKeyOrder.INSTANCE.orders(rowType.type(field), description.collation(field)))
                        .as("%s %s (collation %s)", c.getKey(), c.getValue(), description.collation(field)).isTrue();
                pairs += KeyOrderOracle.check(PostgresKeyOrder.INSTANCE, c.getKey() + " " + c.getValue(),
                        rowType.type(field), description.collation(field), decoded.get(c.getKey()),
                        ranks(db, c.getKey()), seed);
            }
            assertThat(pairs).isEqualTo(columns.size() * ROWS * ROWS);
        }
    }

    @Test
    void textKeysSplitIntoChunksOfTheServersRanges(PostgresDatabase db) throws SQLException {
        long seed = KeyOrderOracle.seed(getClass());
        Random random = new Random(seed);
        db.execute("DROP TABLE IF EXISTS text_keyed", "DROP TABLE IF EXISTS char_keyed", "DROP TABLE IF EXISTS pair_keyed",
                "CREATE TABLE text_keyed (k text COLLATE \"C\" PRIMARY KEY, v int)",
                "CREATE TABLE char_keyed (k character(10) COLLATE \"C\" PRIMARY KEY, v int)",
                "CREATE TABLE pair_keyed (a int, b varchar(40), v int, PRIMARY KEY (a, b))",
                "GRANT SELECT ON text_keyed, char_keyed, pair_keyed TO " + db.replicationUser());
        List<String> inserts = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            String text = RandomText.literal(RandomText.next(random, 4));
            // character(10) ignores trailing spaces: 'a' and 'a ' are one key there, so conflicts are skipped
            inserts.add("INSERT INTO text_keyed VALUES (" + text + ", " + i + ") ON CONFLICT DO NOTHING");
            inserts.add("INSERT INTO char_keyed VALUES (" + text + ", " + i + ") ON CONFLICT DO NOTHING");
            inserts.add("INSERT INTO pair_keyed VALUES (" + random.nextInt(3) + ", " + text + ", " + i
                    + ") ON CONFLICT DO NOTHING");
        }
        db.execute(inserts.toArray(new String[0]));
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = session(db)) {
            for (String name : List.of("text_keyed", "char_keyed", "pair_keyed")) {
                TableDescription table = session.describe(TableId.of(db.name(), "public", name));
                ChunkKey key = ChunkKey.of(table, PostgresKeyOrder.INSTANCE, null, OPTION);
                assertThat(key.splittable()).as(name + " " + key.collations()).isTrue();
                int count = Integer.parseInt(db.queryValue("SELECT count(*) FROM " + name));
                assertThat(ChunkedReads.countInChunks(session, table, key, 3)).as(name + " (seed " + seed + ")").isEqualTo(count);
            }
        }
    }

    /**
     * Text of a collation the key order does not reproduce (the first deterministic one of the server
     * besides the byte-comparing ones, an ICU one, and a nondeterministic case-insensitive one), alone and
     * after an int: split into chunks by the server, and every row placed by the server's placement into
     * the chunk whose range predicates read it (checked by {@link ChunkedReads}).
     */
    @Test
    void textOfOtherCollationsIsSplitAndPlacedByTheServer(PostgresDatabase db) {
        long seed = KeyOrderOracle.seed(getClass());
        Random random = new Random(seed);
        // the test server's operating system has C.utf8, which libc's strcoll compares: not ordered here
        List<String> others = db.queryColumn("SELECT quote_ident(collname) FROM pg_catalog.pg_collation "
                + "WHERE collencoding IN (-1, 6) AND collname NOT IN ('C', 'POSIX', 'ucs_basic', 'default', 'pg_c_utf8') "
                + "AND collisdeterministic ORDER BY collname LIMIT 1");
        assertThat(others).as("a collation the key order does not order").isNotEmpty();
        db.execute("CREATE COLLATION IF NOT EXISTS order_en_icu (provider = icu, locale = 'en-US')",
                "CREATE COLLATION IF NOT EXISTS order_ci_icu (provider = icu, locale = 'und-u-ks-level2', "
                        + "deterministic = false)");
        List<String> collations = List.of(others.get(0), "order_en_icu", "order_ci_icu");
        try (CatalogSession<PostgresPosition, PostgresChunkMark> session = session(db)) {
            for (int c = 0; c < collations.size(); c++) {
                String single = "other_keyed_" + c;
                String pair = "other_pair_" + c;
                db.execute("DROP TABLE IF EXISTS " + single + ", " + pair,
                        "CREATE TABLE " + single + " (k text COLLATE " + collations.get(c) + " PRIMARY KEY)",
                        "CREATE TABLE " + pair + " (a int, k varchar(40) COLLATE " + collations.get(c)
                                + ", PRIMARY KEY (a, k))",
                        "GRANT SELECT ON " + single + ", " + pair + " TO " + db.replicationUser());
                List<String> inserts = new ArrayList<>();
                for (int i = 0; i < 150; i++) {
                    String text = RandomText.literal(RandomText.next(random, 4));
                    inserts.add("INSERT INTO " + single + " VALUES (" + text + ") ON CONFLICT DO NOTHING");
                    inserts.add("INSERT INTO " + pair + " VALUES (" + random.nextInt(3) + ", " + text
                            + ") ON CONFLICT DO NOTHING");
                }
                db.execute(inserts.toArray(new String[0]));
                for (String name : List.of(single, pair)) {
                    TableDescription table = session.describe(TableId.of(db.name(), "public", name));
                    ChunkKey key = ChunkKey.of(table, PostgresKeyOrder.INSTANCE, null, OPTION);
                    assertThat(key.collations().get(key.columns().size() - 1))
                            .contains(collations.get(c).replace("\"", ""));
                    assertThat(key.splittable() && key.placedByServer()).as(name + " " + key.collations()).isTrue();
                    int count = Integer.parseInt(db.queryValue("SELECT count(*) FROM " + name));
                    assertThat(ChunkedReads.countInChunks(session, table, key, 7)).as(name + " (seed " + seed + ")")
                            .isEqualTo(count);
                }
            }
        }
    }

    private static CatalogSession<PostgresPosition, PostgresChunkMark> session(PostgresDatabase db) {
        return PostgresConnector.create(PostgresTestConfigs.builder(db).build()).openSession();
    }

    private static Map<Integer, Long> ranks(PostgresDatabase db, String column) throws SQLException {
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
