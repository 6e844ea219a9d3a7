package io.rustcdc.flink.source.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class JdbcTransactionsTest {
    private final List<String> calls = new ArrayList<>();

    /** A connection that only records the calls made of it. */
    private Connection connection() {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    calls.add(method.getName() + (args == null ? "" : Arrays.toString(args)));
                    return null;
                });
    }

    @Test
    void workIsCommittedAndTheConnectionSetBack() throws SQLException {
        String result = JdbcTransactions.inTransaction(connection(), Connection.TRANSACTION_SERIALIZABLE, false, () -> {
            calls.add("work");
            return "done";
        });
        assertThat(result).isEqualTo("done");
        assertThat(calls).containsExactly("setTransactionIsolation[8]", "setAutoCommit[false]", "work", "commit",
                "setAutoCommit[true]", "setTransactionIsolation[2]");
    }

    @Test
    void aReadOnlyTransactionIsMadeReadWriteAgain() throws SQLException {
        JdbcTransactions.inTransaction(connection(), Connection.TRANSACTION_REPEATABLE_READ, true, () -> "done");
        assertThat(calls).containsExactly("setTransactionIsolation[4]", "setAutoCommit[false]", "setReadOnly[true]",
                "commit", "setAutoCommit[true]", "setReadOnly[false]", "setTransactionIsolation[2]");
    }

    @Test
    void failedWorkIsRolledBackAndThrownOn() {
        SQLException failure = new SQLException("lost");
        assertThatThrownBy(() -> JdbcTransactions.inTransaction(connection(), Connection.TRANSACTION_SERIALIZABLE,
                false, () -> {
                    throw failure;
                })).isSameAs(failure);
        assertThat(calls).containsExactly("setTransactionIsolation[8]", "setAutoCommit[false]", "rollback",
                "setAutoCommit[true]", "setTransactionIsolation[2]");

        calls.clear();
        IllegalStateException bug = new IllegalStateException("bug");
        assertThatThrownBy(() -> JdbcTransactions.committed(() -> {
            throw bug;
        }, () -> calls.add("commit"), () -> calls.add("rollback"))).isSameAs(bug);
        assertThat(calls).containsExactly("rollback");
    }
}
