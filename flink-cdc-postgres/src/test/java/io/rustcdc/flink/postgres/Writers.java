package io.rustcdc.flink.postgres;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.testing.ConcurrentWriters;
import java.util.Random;

/**
 * Two tables, and writers that keep changing them while a source snapshots them: inserts beyond
 * the last chunk and into gaps, value updates, key updates across chunks, deletes.
 */
final class Writers {
    private Writers() {}

    /** Table {@code t1 (id int primary key, v text, n int)} and {@code t2 (a int, b int, v text, primary key (a, b))}. */
    static void createTables(PostgresDatabase db, int rows) {
        db.execute("DROP TABLE IF EXISTS t1, t2",
                "CREATE TABLE t1 (id int PRIMARY KEY, v text, n int)",
                "CREATE TABLE t2 (a int, b int, v text, PRIMARY KEY (a, b))",
                "INSERT INTO t1 SELECT g, 'v' || g, g FROM generate_series(1, " + rows + ") g",
                "INSERT INTO t2 SELECT g % 10, g, 'w' || g FROM generate_series(1, " + rows / 3 + ") g",
                "ALTER TABLE t1 OWNER TO " + db.replicationUser(),
                "ALTER TABLE t2 OWNER TO " + db.replicationUser());
    }

    static ConcurrentWriters start(PostgresDatabase db, int count, long millis, int idSpace) {
        return new ConcurrentWriters(db::admin, count, millis, r -> statement(r, idSpace));
    }

    /** {@link #start}, each writer pausing up to {@code maxPauseMillis} after each transaction. */
    static ConcurrentWriters start(PostgresDatabase db, int count, long millis, int idSpace, int maxPauseMillis) {
        return new ConcurrentWriters(db::admin, count, millis, maxPauseMillis, r -> statement(r, idSpace));
    }

    /** {@link #start}, writer {@code w} drawing from {@code new Random(seed + w)}. */
    static ConcurrentWriters start(PostgresDatabase db, int count, long millis, int idSpace, int maxPauseMillis, long seed) {
        return new ConcurrentWriters(db::admin, count, millis, maxPauseMillis, seed, r -> statement(r, idSpace));
    }

    /** Writers of {@code t2} only (value and key updates, inserts): {@code t1} stays as it is. */
    static ConcurrentWriters startOnT2(PostgresDatabase db, int count, long millis, int idSpace) {
        return new ConcurrentWriters(db::admin, count, millis, r -> {
            int id = 1 + r.nextInt(idSpace);
            return statement(r, idSpace, id, 6 + r.nextInt(2));
        });
    }

    private static String statement(Random r, int idSpace) {
        int id = 1 + r.nextInt(idSpace);
        return statement(r, idSpace, id, r.nextInt(8));
    }

    private static String statement(Random r, int idSpace, int id, int kind) {
        switch (kind) {
            case 0:
                return "INSERT INTO t1 VALUES (" + (idSpace + r.nextInt(idSpace)) + ", 'new', 0) ON CONFLICT DO NOTHING";
            case 1:
                return "INSERT INTO t1 VALUES (" + id + ", 'gap', 1) ON CONFLICT DO NOTHING";
            case 2:
            case 3:
                return "UPDATE t1 SET n = n + 1, v = md5(random()::text) WHERE id = " + id;
            case 4:
                // a key change that moves the row into another chunk, up or down
                int to = r.nextBoolean() ? id + 1000 : Math.max(1, id - 1000);
                return "UPDATE t1 SET id = " + to + " WHERE id = " + id;
            case 5:
                return "DELETE FROM t1 WHERE id = " + id;
            case 6:
                return "UPDATE t2 SET v = md5(random()::text), b = b + 100000 WHERE a = " + (id % 10) + " AND b = " + id;
            default:
                return "INSERT INTO t2 VALUES (" + (id % 10) + ", " + (idSpace + r.nextInt(idSpace)) + ", 'x') "
                        + "ON CONFLICT DO NOTHING";
        }
    }
}
