package io.rustcdc.flink.benchmark;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

/** {@code --wal-transport}: refused by name before anything starts when it is unknown or not for the database. */
class WalTransportOptionTest {
    private static final PrintStream NOWHERE = new PrintStream(OutputStream.nullOutputStream());

    @Test
    void anUnknownTransportIsRefusedByName() {
        assertThatThrownBy(() -> Benchmark.run(new String[] {"--wal-transport", "peek"}, NOWHERE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--wal-transport peek: expected streaming or sql-peek");
    }

    @Test
    void sqlPeekIsForPostgresOnly() {
        assertThatThrownBy(() -> Benchmark.run(new String[] {"--database", "mariadb", "--wal-transport", "sql-peek"},
                NOWHERE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--wal-transport sql-peek reads a PostgreSQL slot: use it with --database postgres "
                        + "(the default), not --database mariadb");
    }
}
