package io.rustcdc.flink.e2e;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.testing.SqlDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps changing {@code orders (id bigint primary key, status text, amount numeric(12,2))} until
 * stopped: inserts of new ids, updates of status and amount, key updates, deletes, in transactions
 * of one to three statements. On PostgreSQL, or on MySQL and MariaDB (a table of the same name and
 * columns, see {@code MySqlSqlClientClusterITCase}).
 */
final class OrderWriter implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger transactions = new AtomicInteger();
    private final Thread thread;
    private volatile Throwable failure;

    static void createOrders(PostgresDatabase db, int rows) {
        db.execute("CREATE TABLE orders (id bigint PRIMARY KEY, status text NOT NULL, amount numeric(12,2))",
                "INSERT INTO orders SELECT g, (ARRAY['new','paid','shipped'])[1 + g % 3], g * 1.25 "
                        + "FROM generate_series(1, " + rows + ") g",
                "ALTER TABLE orders REPLICA IDENTITY FULL",
                "ALTER TABLE orders OWNER TO " + db.replicationUser());
    }

    /** The same table on MySQL or MariaDB, {@code rows} rows. */
    static void createOrders(MySqlDatabase db, int rows) {
        StringBuilder insert = new StringBuilder("INSERT INTO orders VALUES ");
        String[] statuses = {"new", "paid", "shipped"};
        for (int i = 1; i <= rows; i++) {
            insert.append(i == 1 ? "" : ", ").append('(').append(i).append(", '").append(statuses[i % 3])
                    .append("', ").append(i).append(" * 1.25)");
        }
        db.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(16) NOT NULL, amount DECIMAL(12,2))",
                insert.toString());
    }

    OrderWriter(SqlDatabase db, long seed) {
        Random random = new Random(seed);
        boolean postgres = db instanceof PostgresDatabase;
        thread = new Thread(() -> {
            try (Connection c = db.admin();
                    Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                while (!stop.get()) {
                    int statements = 1 + random.nextInt(3);
                    try {
                        for (int i = 0; i < statements; i++) {
                            s.execute(statement(random, postgres));
                        }
                        c.commit();
                        transactions.incrementAndGet();
                    } catch (SQLException e) {
                        c.rollback(); // a key update met an existing key
                    }
                    Thread.sleep(2);
                }
            } catch (Throwable e) {
                failure = e;
            }
        }, "order-writer");
        thread.start();
    }

    private static String statement(Random random, boolean postgres) {
        long id = 1 + random.nextInt(20_000);
        return switch (random.nextInt(10)) {
            case 0, 1, 2 -> (postgres ? "INSERT INTO" : "INSERT IGNORE INTO") + " orders VALUES ("
                    + (100_000 + random.nextInt(1_000_000)) + ", 'new', " + random.nextInt(10_000) + ".5)"
                    + (postgres ? " ON CONFLICT DO NOTHING" : "");
            case 3, 4, 5 -> "UPDATE orders SET status = 'paid', amount = amount + 1 WHERE id = " + id;
            case 6 -> "UPDATE orders SET id = id + 2000000 WHERE id = " + id;
            default -> "DELETE FROM orders WHERE id = " + id;
        };
    }

    /** Waits until at least {@code n} more transactions have committed. */
    void awaitTransactions(int n) throws InterruptedException {
        int target = transactions.get() + n;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (transactions.get() < target) {
            if (failure != null || System.nanoTime() > deadline) {
                throw new AssertionError("The writer committed " + transactions.get() + " transactions", failure);
            }
            Thread.sleep(50);
        }
    }

    /** Stops writing; fails if the writer failed. */
    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join();
        if (failure != null) {
            throw new AssertionError("The writer failed", failure);
        }
    }
}
