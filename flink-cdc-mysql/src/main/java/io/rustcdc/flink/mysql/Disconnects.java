package io.rustcdc.flink.mysql;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/** Closing a JDBC connection that another thread may be blocked on. */
final class Disconnects {
    /**
     * How long the driver's {@code abort} may take before the connection's socket is cut: ample for
     * its {@code KILL} on a new connection and its close where the server answers.
     */
    static final Duration ABORT_WAIT = Duration.ofSeconds(1);

    private Disconnects() {}

    /**
     * Closes {@code connection}, also while another thread is blocked in a call on it, which then
     * fails, within about {@link #ABORT_WAIT} whatever the network does. First MariaDB Connector/J's
     * {@code abort}, on a thread of its own: it has the server kill a busy connection (from a
     * connection of its own, so the server stops the query) before it closes the socket, where {@code
     * close} would wait for the busy thread's socket lock. Behind a network that passes nothing that
     * {@code KILL} waits for its connection's timeout, and the close after it would wait for the busy
     * thread's TLS read lock; so once {@link #ABORT_WAIT} has passed the socket below the connection is
     * closed ({@link TrackedSocketFactory#cut}), which ends the blocked read at once (nothing is sent;
     * the server ends the query when it sees the connection gone). The driver's thread may go on for a
     * while, on its own.
     */
    static void abort(Connection connection) {
        Thread aborter = new Thread(() -> {
            try {
                connection.abort(Runnable::run);
            } catch (SQLException | RuntimeException e) {
                try {
                    connection.close();
                } catch (SQLException ignored) {
                    // gone either way
                }
            }
        }, "rustcdc-jdbc-abort");
        aborter.setDaemon(true);
        aborter.start();
        try {
            aborter.join(ABORT_WAIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // cut at once, and let the caller see the interrupt
        }
        TrackedSocketFactory.cut(connection); // nothing left to do once the driver closed it
    }
}
