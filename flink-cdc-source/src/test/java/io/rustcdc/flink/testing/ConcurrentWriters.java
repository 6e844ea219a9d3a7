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
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;

/**
 * Writer threads that keep running transactions of one to four statements each, drawn from a
 * generator, while a source reads; a transaction a concurrent writer conflicts with is rolled back.
 * Bounded in time; they stop by themselves. The test can pause them between transactions: {@link
 * #paused} runs an action while no writer's transaction is open, so the table's rows read in it are
 * exactly those every committed change left.
 */
public final class ConcurrentWriters implements AutoCloseable {
    /** What runs while the writers are paused. */
    public interface Action {
        void run() throws Exception;
    }

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);
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
        this(connections, count, millis, maxPauseMillis, 42, statements);
    }

    /** As above, writer {@code w} drawing from {@code new Random(seed + w)}. */
    public ConcurrentWriters(Callable<Connection> connections, int count, long millis, int maxPauseMillis, long seed,
            Function<Random, String> statements) {
        long deadline = System.currentTimeMillis() + millis;
        for (int w = 0; w < count; w++) {
            Random random = new Random(seed + w);
            Thread t = new Thread(() -> {
                try (Connection c = connections.call();
                        Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    while (!stop.get() && System.currentTimeMillis() < deadline) {
                        int n = 1 + random.nextInt(4);
                        lock.readLock().lock();
                        try {
                            for (int i = 0; i < n; i++) {
                                s.execute(statements.apply(random));
                            }
                            c.commit();
                            transactions.incrementAndGet();
                        } catch (SQLException e) {
                            c.rollback(); // a concurrent writer took the same key first
                        } finally {
                            lock.readLock().unlock();
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

    /** Runs {@code action} once every open transaction has ended, no writer starting one meanwhile. */
    public void paused(Action action) throws Exception {
        lock.writeLock().lock();
        try {
            action.run();
        } finally {
            lock.writeLock().unlock();
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
