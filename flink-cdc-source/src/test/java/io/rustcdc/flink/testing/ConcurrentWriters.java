package io.rustcdc.flink.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Writer threads that keep running transactions of one to four statements each, drawn from a
 * generator, while a source reads; a transaction a concurrent writer conflicts with is rolled back.
 * Bounded in time; they stop by themselves.
 */
public final class ConcurrentWriters implements AutoCloseable {
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger transactions = new AtomicInteger();
    private volatile Throwable failure;

    public ConcurrentWriters(Callable<Connection> connections, int count, long millis, Function<Random, String> statements) {
        this(connections, count, millis, 3, statements);
    }

    /**
     * @param maxPauseMillis each writer pauses up to this long (exclusive) after each transaction: a larger value
     *     writes fewer changes over the same time, for a test that needs changes all along, not many of them
     */
    public ConcurrentWriters(Callable<Connection> connections, int count, long millis, int maxPauseMillis,
            Function<Random, String> statements) {
        long deadline = System.currentTimeMillis() + millis;
        for (int w = 0; w < count; w++) {
            Random random = new Random(42 + w);
            Thread t = new Thread(() -> {
                try (Connection c = connections.call();
                        Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    while (!stop.get() && System.currentTimeMillis() < deadline) {
                        int n = 1 + random.nextInt(4);
                        try {
                            for (int i = 0; i < n; i++) {
                                s.execute(statements.apply(random));
                            }
                            c.commit();
                            transactions.incrementAndGet();
                        } catch (SQLException e) {
                            c.rollback(); // a concurrent writer took the same key first
                        }
                        Thread.sleep(random.nextInt(maxPauseMillis));
                    }
                } catch (Throwable e) {
                    failure = e;
                }
            }, "writer-" + w);
            threads.add(t);
            t.start();
        }
    }

    public int transactions() {
        return transactions.get();
    }

    /** Waits for the writers to stop by themselves; fails when one of them failed. */
    public void awaitEnd() throws InterruptedException {
        for (Thread t : threads) {
            t.join();
        }
        if (failure != null) {
            throw new AssertionError("A writer failed", failure);
        }
    }

    /** Stops the writers now, before their time is up; fails when one of them failed. */
    public void endNow() throws InterruptedException {
        stop.set(true);
        awaitEnd();
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
    }
}
