package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.testing.Poll;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Large (TOASTed) columns in Flink SQL on PostgreSQL: an update that leaves a value stored out of
 * line unchanged does not send it unless the table has REPLICA IDENTITY FULL. Both changelog modes,
 * with and without FULL and {@code toast.reselect}; the refusal at the start; the races of a re-read
 * with later changes; and a randomized run of concurrent updates to TOASTed and other columns, whose
 * upserted result must equal the table ({@code -Drustcdc.toast.seed=N} replays it).
 */
@ExtendWith(PostgresExtension.class)
@Timeout(300)
class PostgresToastSqlITCase {
    private static final long SEED = Long.getLong("rustcdc.toast.seed", System.nanoTime());

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private PostgresDatabase db;
    private StreamTableEnvironment tables;

    @BeforeEach
    void setUp(PostgresDatabase db) {
        this.db = db;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                Configuration.fromMap(Map.of("restart-strategy.type", "none")));
        env.setParallelism(1);
        env.enableCheckpointing(300);
        tables = StreamTableEnvironment.create(env);
    }

    /** A table {@code name} (id, small, n, big) with {@code big} stored out of line, uncompressed. */
    private void createTable(String name, String identity) {
        db.execute("DROP TABLE IF EXISTS " + name, "CREATE TABLE " + name + " (id int PRIMARY KEY, small text, n int, big text)",
                "ALTER TABLE " + name + " ALTER COLUMN big SET STORAGE EXTERNAL",
                "ALTER TABLE " + name + " REPLICA IDENTITY " + identity,
                "ALTER TABLE " + name + " OWNER TO " + db.replicationUser());
    }

    private void declare(String flinkTable, String table, String columns, String extra) {
        tables.executeSql("CREATE TABLE " + flinkTable + " (" + columns + ", PRIMARY KEY (id) NOT ENFORCED) "
                + SqlTestTables.with(db, "public." + table, flinkTable, ", 'scan.incremental.snapshot.chunk.size' = '10'"
                        + extra));
    }

    private static final String ALL_COLUMNS = "id INT, small STRING, n INT, big STRING";

    private static String big(Random random) {
        StringBuilder sb = new StringBuilder();
        int length = 2500 + random.nextInt(1500);
        while (sb.length() < length) {
            int cp = random.nextInt(8) == 0 ? "'\\\t".charAt(random.nextInt(3)) : 0x21 + random.nextInt(0x2FFF);
            sb.appendCodePoint(cp);
        }
        return sb.toString();
    }

    private static String literal(String s) {
        return s == null ? "NULL" : "'" + s.replace("'", "''") + "'";
    }

    @Test
    void withoutFullIdentityAllIsRefusedAndUpsertIsRefusedForADeclaredToastableColumn() throws Exception {
        createTable("plain", "DEFAULT");
        db.execute("INSERT INTO plain VALUES (1, 'a', 1, " + literal(big(new Random(SEED))) + ")");
        declare("plain_all", "plain", ALL_COLUMNS, "");
        // the jobs that fail at the start run into a blackhole sink (JobFailure: FLINK-39330)
        assertThat(JobFailure.of(tables, "SELECT * FROM plain_all"))
                .contains("REPLICA IDENTITY of \"public\".\"plain\" does not fit: the changelog needs whole old rows");
        declare("plain_upsert", "plain", ALL_COLUMNS, ", 'changelog-mode' = 'upsert'");
        assertThat(JobFailure.of(tables, "SELECT * FROM plain_upsert"))
                .contains("Columns small (text), big (text) of public.plain can be stored out of line (TOASTed), "
                        + "and the table's REPLICA IDENTITY is DEFAULT: an update that leaves such a value "
                        + "unchanged does not send it, but the Flink table "
                        + "default_catalog.default_database.plain_upsert (changelog-mode 'upsert': each +U row "
                        + "holds every column the table declares) needs each of them in every update. Run "
                        + "ALTER TABLE \"public\".\"plain\" REPLICA IDENTITY FULL;")
                .contains("or set 'toast.reselect' = 'true'");
        // a table that declares no column that can be TOASTed reads without either
        declare("plain_narrow", "plain", "id INT, n INT", ", 'changelog-mode' = 'upsert'");
        try (CloseableIterator<Row> it = tables.executeSql("SELECT * FROM plain_narrow").collect()) {
            assertThat(it.next().getField("n")).isEqualTo(1);
            db.execute("UPDATE plain SET n = 2 WHERE id = 1");
            assertThat(lastOf(it, 2).getField("n")).isEqualTo(2);
        }
    }

    /** The next {@code count} rows' last (an upsert's +U comes as -U and +U out of Flink's normalization). */
    private static Row lastOf(CloseableIterator<Row> it, int count) {
        Row last = null;
        for (int i = 0; i < count; i++) {
            last = it.next();
        }
        return last;
    }

    @Test
    void withFullIdentityBothModesCarryTheUnchangedValue() throws Exception {
        createTable("wide", "FULL");
        String big = big(new Random(SEED + 1));
        db.execute("INSERT INTO wide VALUES (1, 'a', 1, " + literal(big) + ")");
        declare("wide_all", "wide", ALL_COLUMNS, "");
        declare("wide_upsert", "wide", ALL_COLUMNS, ", 'changelog-mode' = 'upsert'");
        // one job reads the table in both modes
        try (CloseableIterator<Row> it = tables.executeSql("SELECT 'all' AS mode, * FROM wide_all UNION ALL "
                + "SELECT 'upsert' AS mode, * FROM wide_upsert").collect()) {
            for (int i = 0; i < 2; i++) {
                assertThat(it.next().getField("big")).isEqualTo(big);
            }
            db.execute("UPDATE wide SET small = 'b' WHERE id = 1");
            List<String> updated = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Row r = it.next();
                assertThat(r.getField("big")).as(r.toString().substring(0, 20)).isEqualTo(big);
                updated.add(r.getKind().shortString() + " " + r.getField("mode") + " " + r.getField("small"));
            }
            assertThat(updated).containsExactlyInAnyOrder("-U all a", "+U all b", "-U upsert a", "+U upsert b");
        }
    }

    /**
     * {@code toast.reselect} in upsert mode, where every write is done before the job starts from the
     * slot ({@code committed-offset}), so each re-read runs after all of them: the update of row 1
     * shows the later update's value (which then follows), the update of row 2 is a -D (the row was
     * deleted before the re-read; the delete follows), and the result is the table.
     */
    @Test
    void upsertWithReselectFillsUnchangedValuesAndTheRacesConverge() throws Exception {
        createTable("docs", "DEFAULT");
        Random random = new Random(SEED + 2);
        String first = big(random);
        String later = big(random);
        db.execute("CREATE PUBLICATION docs_race FOR TABLE docs",
                "SELECT pg_create_logical_replication_slot('docs_race', 'pgoutput')",
                "INSERT INTO docs VALUES (1, 'a', 1, " + literal(first) + "), (2, 'a', 1, " + literal(big(random))
                        + "), (3, 'a', 1, " + literal(big(random)) + ")",
                "UPDATE docs SET small = 'b' WHERE id = 1", "UPDATE docs SET big = " + literal(later) + " WHERE id = 1",
                "UPDATE docs SET small = 'b' WHERE id = 2", "DELETE FROM docs WHERE id = 2",
                "UPDATE docs SET n = 2 WHERE id = 3");
        tables.executeSql("CREATE TABLE docs_race (" + ALL_COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED) "
                + SqlTestTables.with(db, "public.docs", "docs_race", ", 'changelog-mode' = 'upsert', "
                        + "'scan.startup.mode' = 'committed-offset', 'toast.reselect' = 'true'"));
        List<Row> rows = new ArrayList<>();
        Map<Integer, List<String>> state = new HashMap<>();
        try (CloseableIterator<Row> it = tables.executeSql("SELECT * FROM docs_race").collect()) {
            Poll.until("the changelog to equal the table", Duration.ofSeconds(60), () -> {
                Row r = it.next();
                rows.add(r);
                apply(state, r);
                return state.equals(table("docs"));
            });
        }
        assertThat(rows).filteredOn(r -> r.getKind() == RowKind.UPDATE_AFTER && r.getField("id").equals(1))
                .extracting(r -> r.getField("small") + " " + r.getField("big").equals(later))
                .as("the update of small shows the later value of big; the later update follows").startsWith("b true");
        assertThat(rows).noneMatch(r -> r.getField("id").equals(1) && "b".equals(r.getField("small"))
                && first.equals(r.getField("big")));
        assertThat(state.get(3).get(1)).isEqualTo("2");
    }

    /**
     * Seeded writers update TOASTed and other columns of a few rows, change keys, delete and insert,
     * while a job in upsert mode with {@code toast.reselect} snapshots and streams the table without
     * REPLICA IDENTITY FULL; once the writers stop, the upserted result must equal the table.
     */
    @Test
    void randomConcurrentUpdatesConvergeToTheTable() throws Exception {
        createTable("hot", "DEFAULT");
        Random random = new Random(SEED + 3);
        System.out.println("PostgresToastSqlITCase.randomConcurrentUpdatesConvergeToTheTable: seed " + SEED
                + " (replay: -Drustcdc.toast.seed=" + SEED + ")");
        List<Integer> ids = new ArrayList<>();
        for (int id = 1; id <= 30; id++) {
            ids.add(id);
            db.execute("INSERT INTO hot VALUES (" + id + ", 's', 0, " + literal(big(random)) + ")");
        }
        declare("hot_upsert", "hot", ALL_COLUMNS, ", 'changelog-mode' = 'upsert', 'toast.reselect' = 'true'");
        BlockingQueue<Row> changelog = new LinkedBlockingQueue<>();
        AtomicInteger arrived = new AtomicInteger();
        CloseableIterator<Row> it = tables.executeSql("SELECT * FROM hot_upsert").collect();
        Thread reader = new Thread(() -> {
            try {
                it.forEachRemaining(r -> {
                    changelog.add(r);
                    arrived.incrementAndGet();
                });
            } catch (RuntimeException closed) {
                // the test closed the result
            }
        });
        reader.start();
        int next = 31;
        try (Connection c = db.admin(); Statement s = c.createStatement()) {
            for (int tx = 0; tx < 120; tx++) {
                if (tx % 30 == 0) {
                    // the job reads while the writes go on: its re-reads race with them
                    int seen = arrived.get();
                    Poll.until("the job to emit more rows", Duration.ofSeconds(60), () -> arrived.get() > seen);
                }
                StringBuilder sql = new StringBuilder("BEGIN;");
                for (int op = random.nextInt(3); op >= 0; op--) {
                    int pick = random.nextInt(100);
                    int id = ids.get(random.nextInt(ids.size()));
                    if (pick < 40) {
                        sql.append("UPDATE hot SET small = 's").append(random.nextInt(1000)).append("', n = n + 1 WHERE id = ")
                                .append(id).append(';');
                    } else if (pick < 60) {
                        sql.append("UPDATE hot SET big = ").append(literal(big(random))).append(" WHERE id = ").append(id)
                                .append(';');
                    } else if (pick < 70) {
                        sql.append("UPDATE hot SET small = NULL, big = ")
                                .append(random.nextBoolean() ? "NULL" : literal(big(random)))
                                .append(" WHERE id = ").append(id).append(';');
                    } else if (pick < 80 && ids.size() > 5) {
                        ids.remove(Integer.valueOf(id));
                        sql.append("DELETE FROM hot WHERE id = ").append(id).append(';');
                    } else if (pick < 90) {
                        ids.remove(Integer.valueOf(id));
                        ids.add(next);
                        sql.append("UPDATE hot SET id = ").append(next++).append(", n = n + 1 WHERE id = ").append(id)
                                .append(';');
                    } else {
                        ids.add(next);
                        sql.append("INSERT INTO hot VALUES (").append(next++).append(", 'new', 0, ").append(literal(big(random)))
                                .append(");");
                    }
                }
                s.execute(sql.append("COMMIT").toString());
            }
        }
        Map<Integer, List<String>> expected = table("hot");
        Map<Integer, List<String>> state = new HashMap<>();
        int[] seen = {0};
        try {
            Poll.until("the upserted result to equal the table (seed " + SEED + ")", Duration.ofSeconds(90), () -> {
                Row r;
                while ((r = changelog.poll(50, TimeUnit.MILLISECONDS)) != null) {
                    apply(state, r);
                    seen[0]++;
                }
                return state.equals(expected);
            });
            System.out.println("PostgresToastSqlITCase.randomConcurrentUpdatesConvergeToTheTable: " + seen[0]
                    + " changelog rows, " + expected.size() + " rows in the table");
        } finally {
            it.close();
            reader.join(30_000);
        }
    }

    /** Applies one row of Flink's changelog to the result by key. */
    private static void apply(Map<Integer, List<String>> state, Row r) {
        Integer id = (Integer) r.getField("id");
        if (r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER) {
            state.put(id, values(r.getField("small"), r.getField("n"), r.getField("big")));
        } else {
            state.remove(id);
        }
    }

    private static List<String> values(Object small, Object n, Object big) {
        List<String> values = new ArrayList<>();
        values.add(small == null ? null : small.toString());
        values.add(n == null ? null : n.toString());
        values.add(big == null ? null : big.toString());
        return values;
    }

    private Map<Integer, List<String>> table(String name) {
        Map<Integer, List<String>> rows = new HashMap<>();
        for (List<String> row : db.query("SELECT id, small, n, big FROM " + name)) {
            rows.put(Integer.valueOf(row.get(0)), values(row.get(1), row.get(2), row.get(3)));
        }
        return rows;
    }
}
