package io.rustcdc.flink.source.spi;

import java.sql.Connection;
import java.sql.SQLException;
import org.apache.flink.annotation.Internal;

/**
 * Work done in one JDBC transaction: committed when it returns, rolled back when it throws (the
 * failure then goes on as it was thrown). For connectors whose sessions read a chunk in a
 * transaction of its own.
 *
 * <pre>{@code
 * Mark mark = JdbcTransactions.inTransaction(connection, Connection.TRANSACTION_REPEATABLE_READ, true,
 *         () -> readRows(...));
 * }</pre>
 */
@Internal
public final class JdbcTransactions {
    private JdbcTransactions() {}

    /** What runs in the transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run() throws SQLException;
    }

    /** A commit or a rollback. */
    @FunctionalInterface
    public interface Step {
        void run() throws SQLException;
    }

    /**
     * {@code work} in a transaction of {@code connection} at {@code isolation}, read-only if asked.
     * The connection is expected in auto-commit at {@code TRANSACTION_READ_COMMITTED}, not read-only,
     * and is left so afterwards, whatever happens (set back, not read, as reading the isolation costs
     * some drivers a round trip).
     */
    public static <T> T inTransaction(Connection connection, int isolation, boolean readOnly, Work<T> work)
            throws SQLException {
        connection.setTransactionIsolation(isolation);
        connection.setAutoCommit(false);
        if (readOnly) {
            connection.setReadOnly(true);
        }
        try {
            return committed(work, connection::commit, connection::rollback);
        } finally {
            connection.setAutoCommit(true);
            if (readOnly) {
                connection.setReadOnly(false);
            }
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
    }

    /**
     * {@code work} in the transaction already open, then {@code commit}; {@code rollback} when {@code
     * work} or the commit fails, and the failure thrown on.
     */
    public static <T> T committed(Work<T> work, Step commit, Step rollback) throws SQLException {
        try {
            T result = work.run();
            commit.run();
            return result;
        } catch (SQLException | RuntimeException e) {
            rollback.run();
            throw e;
        }
    }
}
