package io.rustcdc.flink.quickstart;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

/** The quickstart's demo schema, and a writer that keeps changing it. */
final class DemoShop {
    private final PostgresDatabase db;
    private final AtomicBoolean writing = new AtomicBoolean();
    private Thread writer;

    DemoShop(PostgresDatabase db) {
        this.db = db;
    }

    void create() {
        db.execute(
                "CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, email varchar(64))",
                "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int NOT NULL REFERENCES customers, "
                        + "amount numeric(12,2) NOT NULL, status text NOT NULL, placed_at timestamptz NOT NULL, "
                        + "tags text[])",
                "INSERT INTO customers SELECT g, 'customer ' || g, 'c' || g || '@example.com' FROM generate_series(1, 5) g",
                "INSERT INTO orders SELECT g, 1 + g % 5, (g * 7.25)::numeric(12,2), 'new', "
                        + "'2026-01-01T00:00:00Z'::timestamptz + g * interval '1 hour', ARRAY['demo'] "
                        + "FROM generate_series(1, 10) g",
                "ALTER TABLE customers OWNER TO " + db.replicationUser(),
                "ALTER TABLE orders OWNER TO " + db.replicationUser());
    }

    void startWriting() {
        writing.set(true);
        writer = new Thread(() -> {
            Random random = new Random();
            long next = 11;
            while (writing.get()) {
                try {
                    switch (random.nextInt(3)) {
                        case 0:
                            db.execute("INSERT INTO orders VALUES (" + next++ + ", " + (1 + random.nextInt(5)) + ", "
                                    + (random.nextInt(10_000) / 100.0) + ", 'new', now(), ARRAY['web'])");
                            break;
                        case 1:
                            db.execute("UPDATE orders SET status = 'shipped' WHERE id = (SELECT min(id) FROM orders "
                                    + "WHERE status = 'new')");
                            break;
                        default:
                            db.execute("DELETE FROM orders WHERE id = (SELECT min(id) FROM orders WHERE status = 'shipped')");
                    }
                    Thread.sleep(Quickstart.writePause().toMillis());
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    // the database is going away at the end; nothing to report
                }
            }
        }, "quickstart-writer");
        writer.setDaemon(true);
        writer.start();
    }

    void stopWriting() {
        writing.set(false);
        if (writer != null) {
            writer.interrupt();
        }
    }
}
