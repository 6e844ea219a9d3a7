package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.RowFilterFailure;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.sqlserver.testing.SqlServerDatabase;
import io.rustcdc.flink.sqlserver.testing.SqlServerExtension;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Row filters on a SQL Server session: a condition the server accepts (its {@code SELECT TOP (0)} check
 * evaluates it on no row) but that fails on some rows' values fails a chunk's planning and its read with a
 * {@link RowFilterFailure} naming the table and the condition, with the server's message, not a connection
 * failure to retry; the session goes on reading (skipped without a server, see {@link SqlServerDatabase}).
 */
@ExtendWith(SqlServerExtension.class)
@Timeout(120)
class SqlServerRowFilterITCase {
    @Test
    void aConditionFailingOnSomeRowsFailsTheChunkAsARowFilterFailure(SqlServerDatabase db) {
        db.execute("CREATE TABLE filtered (id INT PRIMARY KEY, n INT NOT NULL, v VARCHAR(10) NOT NULL)",
                "WITH s AS (SELECT 1 AS i UNION ALL SELECT i + 1 FROM s WHERE i < 20) INSERT INTO filtered "
                        + "SELECT i, i - 10, CASE WHEN i = 15 THEN 'x' ELSE CAST(i AS VARCHAR(10)) END FROM s");
        SqlServerConnector connector = SqlServerConnector.create(db.config().build());
        TableId table = TableId.of(db.name(), "dbo", "filtered");
        String divides = "1 / n > 0";
        String casts = "CAST(v AS INT) > 0";
        try (CatalogSession<SqlServerPosition, SqlServerChunkMark> s = connector.openSession()) {
            TableDescription t = s.describe(table);
            assertThat(s.rowFilterProblem(t, divides)).as("evaluated on no row").isNull();
            assertThat(s.rowFilterProblem(t, casts)).isNull();
            // a condition that would close the chunk query's parenthesis, escaping its key range
            assertThat(s.rowFilterProblem(t, "n = 0) OR (id = 1")).isNotNull();
            assertThat(s.rowFilterProblem(t, "(n = 0 OR n = 2")).isNotNull();
            assertThat(s.rowFilterProblem(t, "(n = 0) OR (n = 2)")).isNull();
            assertThatThrownBy(() -> s.nextChunkEnd(t, List.of("id"), null, 5, divides))
                    .isInstanceOfSatisfying(RowFilterFailure.class, f -> {
                        assertThat(f.table()).isEqualTo(table);
                        assertThat(f.rowFilter()).isEqualTo(divides);
                        assertThat(f.serverMessage()).contains("Divide by zero");
                    });
            Object[] twelfth = s.nextChunkEnd(t, List.of("id"), null, 12, null);
            List<Object> read = new ArrayList<>();
            assertThatThrownBy(() -> s.readChunk(t, List.of("id"), null, twelfth, divides,
                    e -> read.add(e.after().get("id")))).isInstanceOf(RowFilterFailure.class);
            assertThat(read).as("a bounded chunk's rows are held until its read ends").isEmpty();
            assertThatThrownBy(() -> s.readChunk(t, List.of("id"), twelfth, null, casts,
                    e -> read.add(e.after().get("id")))).isInstanceOfSatisfying(RowFilterFailure.class,
                            f -> assertThat(f.serverMessage()).contains("'x'"));

            // the session still reads, with a condition that evaluates on every row
            s.readChunk(t, List.of("id"), null, null, "n > 5", e -> read.add(e.after().get("id")));
            assertThat(read).hasSize(5);
        }
    }
}
