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
 * generator, until stopped, and that the test can pause between transactions: {@link #paused} runs
 * an action while no writer's transaction is open, so the table's rows read in it are exactly those
 * every committed change left. A transaction a concurrent writer conflicts with is rolled back.
 */
public final class PausableWriters implements AutoCloseable {
    /** What runs while the writers are paused. */
    public interface Action {
        void run() throws Exception;
    }

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger transactions = new AtomicInteger();
    private volatile Throwable failure;

    /** {@code count} writers, writer {@code w} drawing from {@code new Random(seed + w)}. */
    public PausableWriters(Callable<Connection> connections, int count, long seed, Function<Random, String> statements) {
        for (int w = 0; w < count; w++) {
            Random random = new Random(seed + w);
            Thread t = new Thread(() -> {
                try (Connection c = connections.call(); Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    while (!stop.get()) {
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
                        Thread.sleep(random.nextInt(8));
                    }
                } catch (Throwable e) {
                    failure = e;
                }
            }, "pausable-writer-" + w);
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

    /** Stops the writers; fails when one of them failed. */
    public void endNow() throws InterruptedException {
        close();
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
