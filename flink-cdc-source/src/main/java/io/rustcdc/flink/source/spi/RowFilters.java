package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Helpers for a connector's row filters (see {@link CatalogSession#nextChunkEnd(TableDescription,
 * java.util.List, Object[], int, String)}): raw, trusted SQL conditions added to a chunk's query.
 */
@PublicEvolving
public final class RowFilters {
    /** SQLSTATE classes of a condition that fails on the values of some rows. */
    private static final Set<String> CONDITION_FAILURES = Set.of("21", "22", "2F", "38", "39", "45", "P0");

    private RowFilters() {}

    /**
     * {@code where} (a condition, or empty for none) with {@code rowFilter} added as {@code AND
     * (<rowFilter>)}; the result is empty or a condition, without the word {@code WHERE}.
     */
    public static String and(String where, @Nullable String rowFilter) {
        if (rowFilter == null) {
            return where;
        }
        String filter = "(" + rowFilter + ")";
        return where.isEmpty() ? filter : where + " AND " + filter;
    }

    /** {@code " WHERE <condition>"}, or empty when {@code condition} is. */
    public static String where(String condition) {
        return condition.isEmpty() ? "" : " WHERE " + condition;
    }

    /**
     * The queries the server must accept for {@code rowFilter} to be one condition: {@code select} (a query
     * that returns no row, up to its {@code WHERE}) with the condition as the chunk queries add it, in
     * parentheses, then {@code tail}; and with the condition alone, then a new line and {@code tail}, where a
     * parenthesis it closes without opening (or opens without closing) fails: in parentheses, {@code a = 1)
     * OR (b = 2} would escape them, and the chunk's key range with them.
     */
    public static List<String> probes(String select, String rowFilter, String tail) {
        return List.of(select + "(" + rowFilter + ")" + tail, select + rowFilter + "\n" + tail);
    }

    /**
     * The server's message when {@code probe} (a query over a row filter that returns no row) fails on
     * {@code connection}, which still answers; null when it runs. When the connection itself is gone,
     * which is not the condition's fault, the failure is thrown as {@code failure} makes it.
     */
    @Nullable
    public static String problem(Connection connection, String probe, Function<SQLException, RuntimeException> failure) {
        try (Statement s = connection.createStatement()) {
            s.executeQuery(probe).close();
            return null;
        } catch (SQLException e) {
            if (!stillConnected(connection)) {
                throw failure.apply(e);
            }
            return e.getMessage();
        }
    }

    /** The first of {@link #problem(Connection, String, Function)} over {@code probes}; null when all run. */
    @Nullable
    public static String problem(Connection connection, List<String> probes,
            Function<SQLException, RuntimeException> failure) {
        for (String probe : probes) {
            String problem = problem(connection, probe, failure);
            if (problem != null) {
                return problem;
            }
        }
        return null;
    }

    /**
     * What a chunk's query over {@code rowFilter} that failed with {@code e} on {@code connection} is: a
     * {@link RowFilterFailure} when the condition failed on rows it was evaluated on (by the SQLSTATE
     * classes of {@link #conditionFailedByState}) and the connection still answers, else what {@code
     * failure} makes of it (also without a filter).
     */
    public static RuntimeException chunkFailure(Connection connection, TableId table, @Nullable String rowFilter,
            SQLException e, Function<SQLException, RuntimeException> failure) {
        return chunkFailure(connection, table, rowFilter, e, RowFilters::conditionFailedByState, failure);
    }

    /**
     * {@link #chunkFailure(Connection, TableId, String, SQLException, Function)} for a driver whose
     * SQLSTATEs do not tell a condition's failure by the standard's classes (one that reports most of the
     * server's errors under one state): {@code conditionFailed} says whether {@code e} is the condition
     * failing on the values of some rows, by what the connector knows of its database's errors.
     */
    public static RuntimeException chunkFailure(Connection connection, TableId table, @Nullable String rowFilter,
            SQLException e, Predicate<SQLException> conditionFailed, Function<SQLException, RuntimeException> failure) {
        if (rowFilter == null || !conditionFailed.test(e) || !stillConnected(connection)) {
            return failure.apply(e);
        }
        RuntimeException f = failure.apply(e);
        return new RowFilterFailure(table, rowFilter, f.getMessage(), f);
    }

    /**
     * Whether {@code e}'s SQLSTATE is of a class of a condition that failed on the values of some rows:
     * 21 cardinality violation, 22 data exception, 2F, 38, 39 routine exceptions, 45 and P0 raised by a
     * routine.
     */
    public static boolean conditionFailedByState(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return state.length() >= 2 && CONDITION_FAILURES.contains(state.substring(0, 2));
    }


    private static boolean stillConnected(Connection connection) {
        try {
            return connection.isValid(5);
        } catch (SQLException e) {
            return false;
        }
    }

    static CdcException unsupported(TableId table) {
        return new CdcException(CdcException.Kind.CONFIGURATION, "A row filter is set for " + table
                + ", but this connector reads no chunk with a row filter; remove the filter");
    }
}
