package io.rustcdc.flink.testing.consistency;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The run's writer connections, each running its own seeded transactions until the deadline; past
 * it the first one goes on, a transaction every 20 ms, until {@link #release() released}: so a run
 * whose snapshot outlasts the deadline still writes while the stream runs.
 */
final class Writers implements AutoCloseable {
    private static final long PAST_DEADLINE_PAUSE_MILLIS = 20;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicBoolean released = new AtomicBoolean();
    private final AtomicInteger committed = new AtomicInteger();
    private final AtomicInteger rolledBack = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private volatile Throwable failure;
    private final long deadline;
    private volatile long releasedAt;

    Writers(ConsistencyTarget target, Workload workload) {
        deadline = System.currentTimeMillis() + workload.writeMillis;
        for (int w = 0; w < workload.writers; w++) {
            Transactions transactions = new Transactions(target, workload.slots, workload.writerSeed(w));
            boolean first = w == 0;
            Thread t = new Thread(() -> {
                try (Connection c = target.connect();
                        Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    while (!stop.get() && (System.currentTimeMillis() < deadline || first && !released.get())) {
                        if (System.currentTimeMillis() >= deadline) {
                            // past the deadline one writer goes on, slower, so that a snapshot slowed by the
                            // writers' pace can end while its changes still reach the stream
                            Thread.sleep(PAST_DEADLINE_PAUSE_MILLIS);
                        }
                        List<String> statements = transactions.next();
                        boolean rollBack = transactions.rollBack();
                        try {
                            for (String sql : statements) {
                                s.execute(sql);
                            }
                            if (rollBack) {
                                c.rollback();
                                rolledBack.incrementAndGet();
                            } else {
                                c.commit();
                                committed.incrementAndGet();
                            }
                        } catch (SQLException e) {
                            c.rollback(); // a collision or a deadlock: the workload allows both
                            failed.incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    failure = e;
                }
            }, "consistency-writer-" + w);
            threads.add(t);
            t.start();
        }
    }

    boolean pastDeadline() {
        return System.currentTimeMillis() >= deadline;
    }

    /** Lets the writers end at their deadline (or now, if it has passed). */
    void release() {
        if (!released.getAndSet(true)) {
            releasedAt = System.currentTimeMillis();
        }
    }

    /** Waits for the writers to reach their deadline; fails when one of them failed. */
    void awaitEnd() throws InterruptedException {
        for (Thread t : threads) {
            t.join();
        }
        if (failure != null) {
            throw new AssertionError("A writer failed", failure);
        }
    }

    boolean ended() {
        return threads.stream().noneMatch(Thread::isAlive);
    }

    int committed() {
        return committed.get();
    }

    @Override
    public String toString() {
        long past = released.get() ? Math.max(0, releasedAt - deadline) : 0;
        return committed + " transactions committed, " + rolledBack + " rolled back, " + failed + " failed by collision"
                + (past > 0 ? ", writing " + past + " ms past the deadline until the stream ran" : "");
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
    }
}
