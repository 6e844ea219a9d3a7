package io.rustcdc.flink.sqlserver;

import java.sql.SQLException;
import java.util.Set;

/**
 * Which of SQL Server's errors are a row filter's condition failing on the values of some rows, by error
 * number: mssql-jdbc reports most of the server's errors with the SQLSTATE {@code S000<state>}, not by the
 * standard's classes, so {@link io.rustcdc.flink.source.spi.RowFilters#conditionFailedByState} cannot
 * tell them. The condition was accepted when the snapshot started ({@code SELECT TOP (0)} compiles it),
 * so these are errors of evaluating it: arithmetic, conversion of a value, a subquery of more than one
 * row, a function's argument, a CLR routine. Any other error goes the way of any failed query (a
 * connection failure, retried). Stateless.
 */
final class SqlServerRowFilterErrors {
    /** Error numbers of a condition that failed on some rows' values (sys.messages). */
    private static final Set<Integer> CONDITION_FAILURES = Set.of(
            8134, // Divide by zero error encountered.
            8115, // Arithmetic overflow error converting %ls to data type %ls.
            220, // Arithmetic overflow error for data type %ls, value = %ld.
            232, // Arithmetic overflow error for type %ls, value = %f.
            517, // Adding a value to a '%ls' column caused an overflow.
            535, // The datediff function resulted in an overflow.
            3623, // An invalid floating point operation occurred.
            8114, // Error converting data type %ls to %ls.
            245, // Conversion failed when converting the %ls value '%.*ls' to data type %ls.
            241, // Conversion failed when converting date and/or time from character string.
            242, // The conversion of a %ls data type to a %ls data type resulted in an out-of-range value.
            244, // The conversion of the %ls value '%.*ls' overflowed an %hs column.
            248, // The conversion of the %ls value '%.*ls' overflowed an int column.
            235, // Cannot convert a char value to money. The char value has incorrect syntax.
            236, // The conversion from char data type to money resulted in a money overflow error.
            293, // Cannot convert char value to smallmoney. The char value has incorrect syntax.
            294, // The conversion from char data type to smallmoney data type resulted in a smallmoney overflow error.
            295, // Conversion failed when converting character string to smalldatetime data type.
            8169, // Conversion failed when converting from a character string to uniqueidentifier.
            9819, // Error converting string value '%.*ls' into data type %ls using culture '%.*ls'.
            13608, // Property cannot be found on the specified JSON path.
            13609, // JSON text is not properly formatted.
            512, // Subquery returned more than 1 value.
            536, // Invalid length parameter passed to the %ls function.
            537, // Invalid length parameter passed to the LEFT or SUBSTRING function.
            6522); // A .NET Framework error occurred during execution of user-defined routine or aggregate.

    private SqlServerRowFilterErrors() {}

    /** Whether {@code e}, from a chunk's query, is its row filter failing on the values of some rows. */
    static boolean conditionFailed(SQLException e) {
        return CONDITION_FAILURES.contains(e.getErrorCode());
    }
}
