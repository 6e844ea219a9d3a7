package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.spi.RowFilters;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * SQL Server's errors of a row filter failing on some rows' values, as mssql-jdbc reports them: the error
 * number, and a SQLSTATE of {@code S000<state>} that the standard's classes do not tell.
 */
class SqlServerRowFilterErrorsTest {
    @Test
    void aConditionFailingOnValuesIsToldByTheErrorNumber() {
        SQLException divide = server("Divide by zero error encountered.", 8134);
        assertThat(RowFilters.conditionFailedByState(divide)).as("its SQLSTATE says nothing").isFalse();
        assertThat(SqlServerRowFilterErrors.conditionFailed(divide)).isTrue();
        assertThat(SqlServerRowFilterErrors.conditionFailed(server("Conversion failed when converting the varchar "
                + "value 'x' to data type int.", 245))).isTrue();
        assertThat(SqlServerRowFilterErrors.conditionFailed(server("Subquery returned more than 1 value.", 512)))
                .isTrue();
        assertThat(SqlServerRowFilterErrors.conditionFailed(server("Arithmetic overflow error converting "
                + "expression to data type int.", 8115))).isTrue();
    }

    @Test
    void otherErrorsAreNot() {
        assertThat(SqlServerRowFilterErrors.conditionFailed(server("Transaction was deadlocked", 1205))).isFalse();
        assertThat(SqlServerRowFilterErrors.conditionFailed(server("Invalid object name 'dbo.t'.", 208))).isFalse();
        assertThat(SqlServerRowFilterErrors.conditionFailed(server("The SELECT permission was denied", 229))).isFalse();
        assertThat(SqlServerRowFilterErrors.conditionFailed(server("Incorrect syntax near 'x'.", 102))).isFalse();
        assertThat(SqlServerRowFilterErrors.conditionFailed(server("Invalid column name 'n'.", 207))).isFalse();
        // the driver's own, on a lost connection: error number 0
        assertThat(SqlServerRowFilterErrors.conditionFailed(new SQLException("Connection reset", "08S01", 0)))
                .isFalse();
    }

    private static SQLException server(String message, int number) {
        return new SQLException(message, "S0001", number);
    }
}
