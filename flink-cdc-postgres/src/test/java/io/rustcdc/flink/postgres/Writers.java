package io.rustcdc.flink.postgres;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writers that keep changing two tables while a source snapshots them: inserts beyond the last
 * chunk and into gaps, value updates, key updates across chunks, deletes, in transactions of one to
 * four statements. Bounded in time; they stop themselves.
 */
final class Writers implements AutoCloseable {
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger transactions = new AtomicInteger();
    private volatile Throwable failure;

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

    Writers(PostgresDatabase db, int count, long millis, int idSpace) {
        long deadline = System.currentTimeMillis() + millis;
        for (int w = 0; w < count; w++) {
            Random random = new Random(42 + w);
            Thread t = new Thread(() -> {
                try (Connection c = db.admin();
                        Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    while (!stop.get() && System.currentTimeMillis() < deadline) {
                        int statements = 1 + random.nextInt(4);
                        try {
                            for (int i = 0; i < statements; i++) {
                                s.execute(statement(random, idSpace));
                            }
                            c.commit();
                            transactions.incrementAndGet();
                        } catch (SQLException e) {
                            c.rollback(); // a concurrent writer took the same key first
                        }
                        Thread.sleep(random.nextInt(3));
                    }
                } catch (Throwable e) {
                    failure = e;
                }
            }, "writer-" + w);
            threads.add(t);
            t.start();
        }
    }

    private static String statement(Random r, int idSpace) {
        int id = 1 + r.nextInt(idSpace);
        switch (r.nextInt(8)) {
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

    int transactions() {
        return transactions.get();
    }

    /** Waits for the writers to stop by themselves; fails when one of them failed. */
    void awaitEnd() throws InterruptedException {
        for (Thread t : threads) {
            t.join();
        }
        if (failure != null) {
            throw new AssertionError("A writer failed", failure);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
    }
}
