package io.rustcdc.flink.mysql;

import java.sql.Connection;
import java.sql.SQLException;

/** Closing a JDBC connection that another thread may be blocked on. */
final class Disconnects {
    private Disconnects() {}

    /**
     * Closes {@code connection}, also while another thread is blocked in a call on it, which then
     * fails: MariaDB Connector/J's {@code abort} has the server kill a busy connection (from a
     * connection of its own) before it closes the socket, where {@code close} would wait for the busy
     * thread's socket lock. (A server that cannot be reached leaves the busy thread blocked.)
     */
    static void abort(Connection connection) {
        try {
            connection.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // gone either way
            }
        }
    }
}
