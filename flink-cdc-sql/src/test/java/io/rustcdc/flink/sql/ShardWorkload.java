package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.SqlDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

/**
 * Sharded tables ({@code id} key, {@code qty}, {@code note}) read as one SQL table with a {@code
 * tbl} column from the {@code table_name} metadata: a seeded random workload of inserts, updates
 * (of values and of keys) and deletes across the shards, with keys that repeat from shard to shard,
 * while the snapshot runs and while the stream runs; then the changelog, applied row by row, must
 * equal the tables' final contents, each row under its table's name. Every -U and -D must retract
 * exactly a row the changelog holds, and every +I must be new. The seed is printed; replay with
 * {@code -Drustcdc.shards.seed=N}.
 */
final class ShardWorkload implements AutoCloseable {
    private static final int KEYS = 40;
    private final SqlDatabase db;
    /** One connection for every write (autocommit: each write its own transaction), opened at the first. */
    private Connection connection;
    private final Random random;
    private final long seed;
    /** Keys each shard holds now, as the only writer knows them. */
    private final Map<String, TreeSet<Integer>> keys = new LinkedHashMap<>();
    private int ops;

    ShardWorkload(SqlDatabase db, String what) {
        this.db = db;
        this.seed = Long.getLong("rustcdc.shards.seed", System.nanoTime());
        System.out.println(what + ": shard workload seed " + seed + " (replay with -Drustcdc.shards.seed=" + seed + ")");
        this.random = new Random(seed);
    }

    long seed() {
        return seed;
    }

    /** Takes {@code table} (created, empty) into the workload and fills it with {@code rows} random rows. */
    void add(String table, int rows) {
        keys.put(table, new TreeSet<>());
        for (int i = 0; i < rows; i++) {
            insert(table);
        }
    }

    private void execute(String sql) {
        try {
            if (connection == null) {
                connection = db.admin();
                connection.setAutoCommit(true);
            }
            try (Statement s = connection.createStatement()) {
                s.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Failed in " + db.name() + " (seed " + seed + "): " + sql, e);
        }
    }

    @Override
    public void close() throws SQLException {
        if (connection != null) {
            connection.close();
        }
    }

    /** One random write to one random shard. */
    void step() {
        List<String> tables = new ArrayList<>(keys.keySet());
        String table = tables.get(random.nextInt(tables.size()));
        TreeSet<Integer> held = keys.get(table);
        // an empty shard takes an insert, a full one (every key of 1 to 40) a delete
        int choice = held.isEmpty() ? 0 : held.size() >= KEYS ? 9 : random.nextInt(10);
        if (choice < 4) {
            insert(table);
        } else if (choice < 7) {
            int id = pick(held);
            execute("UPDATE " + table + " SET qty = qty + " + (1 + random.nextInt(9)) + ", note = "
                    + note() + " WHERE id = " + id);
        } else if (choice < 8) {
            int id = pick(held);
            int to = freeKey(held);
            execute("UPDATE " + table + " SET id = " + to + " WHERE id = " + id);
            held.remove(id);
            held.add(to);
        } else {
            int id = pick(held);
            execute("DELETE FROM " + table + " WHERE id = " + id);
            held.remove(id);
        }
        ops++;
    }

    /**
     * Random writes, 20 ms apart, until {@code done} says so or {@code most} were made: bounded, so that the
     * database gets the quiet moment a PostgreSQL slot's creation waits for.
     */
    void stepUntil(BooleanSupplier done, int most) throws InterruptedException {
        for (int i = 0; i < most && !done.getAsBoolean(); i++) {
            step();
            Thread.sleep(20);
        }
    }

    int ops() {
        return ops;
    }

    private void insert(String table) {
        TreeSet<Integer> held = keys.get(table);
        int id = freeKey(held);
        execute("INSERT INTO " + table + " (id, qty, note) VALUES (" + id + ", " + random.nextInt(100) + ", "
                + note() + ")");
        held.add(id);
    }

    /** A key of 1 to {@link #KEYS} the shard does not hold (it holds fewer): few, so that the shards share keys. */
    private int freeKey(TreeSet<Integer> held) {
        int id;
        do {
            id = 1 + random.nextInt(KEYS);
        } while (held.contains(id));
        return id;
    }

    private int pick(TreeSet<Integer> held) {
        List<Integer> list = new ArrayList<>(held);
        return list.get(random.nextInt(list.size()));
    }

    private String note() {
        return random.nextInt(5) == 0 ? "NULL" : "'n" + random.nextInt(1000) + "'";
    }

    /** Every shard's rows now, as {@code table/id -> qty|note}. */
    Map<String, String> contents() {
        Map<String, String> rows = new TreeMap<>();
        for (String table : keys.keySet()) {
            for (List<String> r : db.query("SELECT id, qty, note FROM " + table)) {
                rows.put(table + "/" + r.get(0), r.get(1) + "|" + r.get(2));
            }
        }
        return rows;
    }

    /** Reads {@code result}'s rows ({@code tbl}, {@code id}, {@code qty}, {@code note}) on a thread of their own. */
    static final class Changelog implements AutoCloseable {
        private final BlockingQueue<Row> rows = new LinkedBlockingQueue<>();
        private final CloseableIterator<Row> it;
        private final Thread reader;
        private final Map<String, String> applied = new HashMap<>();
        /** The values of each column but id, qty and note seen in the rows applied. */
        private final Map<String, java.util.Set<Object>> others = new HashMap<>();
        private volatile int seen;

        Changelog(TableResult result) {
            it = result.collect();
            reader = new Thread(() -> {
                try {
                    while (it.hasNext()) {
                        rows.add(it.next());
                        seen++;
                    }
                } catch (RuntimeException closed) {
                    // the test closed the result, or the job failed: the comparison's timeout says which
                }
            });
            reader.start();
        }

        boolean anyRow() {
            return seen > 0;
        }

        /** Applies the changelog until it equals {@code workload}'s final contents; asserts each row's exactness. */
        void awaitEqual(ShardWorkload workload, Duration timeout) {
            Map<String, String> expected = workload.contents();
            Poll.until("the SQL table's changelog to equal the shards' contents (seed " + workload.seed() + ")", timeout,
                    () -> {
                        Row r;
                        while ((r = rows.poll(20, TimeUnit.MILLISECONDS)) != null) {
                            apply(r, workload.seed());
                        }
                        return applied.equals(expected);
                    });
            assertThat(new TreeMap<>(applied)).as("seed %d", workload.seed()).isEqualTo(expected);
        }

        private void apply(Row r, long seed) {
            for (String name : Objects.requireNonNull(r.getFieldNames(true))) {
                if (!List.of("id", "qty", "note").contains(name)) {
                    others.computeIfAbsent(name, n -> new TreeSet<>()).add(r.getField(name));
                }
            }
            String key = r.getField("tbl") + "/" + r.getField("id");
            String value = r.getField("qty") + "|" + r.getField("note");
            RowKind kind = r.getKind();
            if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
                String before = applied.put(key, value);
                if (kind == RowKind.INSERT) {
                    assertThat(before).as("seed %d: %s is inserted once", seed, key).isNull();
                }
            } else {
                String removed = applied.remove(key);
                assertThat(removed).as("seed %d: %s %s retracts the row it held", seed, kind, key)
                        .isEqualTo(value);
                Objects.requireNonNull(removed);
            }
        }

        /** The values column {@code name} had in the rows applied. */
        java.util.Set<Object> values(String name) {
            return others.getOrDefault(name, java.util.Set.of());
        }

        @Override
        public void close() throws Exception {
            it.close();
            reader.join(30_000);
        }
    }
}
