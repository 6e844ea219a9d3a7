package io.rustcdc.flink.source.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Which failed chunk queries are a row filter failing on some rows' values. The whole decision, with a
 * live connection, runs in the connectors' row filter ITs (PostgreSQL, MariaDB, Oracle MySQL).
 */
class RowFiltersTest {
    private static final TableId T = TableId.of("db", "s", "t");

    @Test
    void theSqlStateClassesOfAConditionThatFailedOnValues() {
        for (String state : new String[] {"22012", "22P02", "21000", "2F005", "38001", "39004", "45000", "P0001"}) {
            assertThat(RowFilters.conditionFailedByState(new SQLException("m", state))).as(state).isTrue();
        }
        for (String state : new String[] {"42601", "08006", "40001", "57014", "S0001", "2", ""}) {
            assertThat(RowFilters.conditionFailedByState(new SQLException("m", state))).as(state).isFalse();
        }
        assertThat(RowFilters.conditionFailedByState(new SQLException("no state"))).isFalse();
    }

    /** The server judges both: a condition that would escape the parentheses fails the second (ITs per server). */
    @Test
    void aConditionIsProbedInParenthesesAndAlone() {
        assertThat(RowFilters.probes("SELECT 1 FROM t WHERE ", "a = 0) OR (a = 2", " LIMIT 0")).containsExactly(
                "SELECT 1 FROM t WHERE (a = 0) OR (a = 2) LIMIT 0", "SELECT 1 FROM t WHERE a = 0) OR (a = 2\n LIMIT 0");
        assertThat(RowFilters.probes("SELECT TOP (0) 1 FROM t WHERE ", "a = 0 -- x", "")).containsExactly(
                "SELECT TOP (0) 1 FROM t WHERE (a = 0 -- x)", "SELECT TOP (0) 1 FROM t WHERE a = 0 -- x\n");
    }

    @Test
    void withoutAFilterOrWhenTheConnectorSaysNoItIsTheUsualFailure() {
        CdcException usual = new CdcException(CdcException.Kind.CONNECTION, "the usual");
        SQLException divide = new SQLException("Divide by zero error encountered.", "22012", 8134);
        // the connection is asked whether it still answers only when the condition failed: not here
        assertThat(RowFilters.chunkFailure(null, T, null, divide, e -> usual)).isSameAs(usual);
        assertThat(RowFilters.chunkFailure(null, T, "1 / n > 0", divide, e -> false, e -> usual)).isSameAs(usual);
        assertThat(RowFilters.chunkFailure(null, T, "1 / n > 0", new SQLException("gone", "08006"), e -> usual))
                .isSameAs(usual);
    }
}
