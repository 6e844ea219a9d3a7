package io.rustcdc.flink.benchmark;

import java.util.List;
import java.util.Set;

/**
 * What a run reads into ({@code --path json|sql|both}): {@link #JSON}, each change rendered as one JSON
 * document by the DataStream source, or {@link #SQL}, rows ({@code RowData}) through a Flink SQL table of
 * the side's connector ({@code io.rustcdc.benchmark.SqlPath}). The SQL path's figures are named with {@code
 * , SQL} after the JSON path's names, and its runs with {@code -sql} after the side.
 */
enum BenchPath {
    JSON("JSON: DataStream source, one JSON document per change"),
    SQL("SQL: a Flink SQL table of the side's connector, RowData into a counting SQL sink");

    /**
     * The SQL path's phases in a quick run: the p1 snapshot alone, since CI runs the quick run on every
     * database and a SQL run's JVM spends most of a quick run planning (about 10 s a side on an idle machine).
     */
    static final Set<String> QUICK_SQL = Set.of("snapshot p1");

    final String description;

    BenchPath(String description) {
        this.description = description;
    }

    static List<BenchPath> of(String option) {
        switch (option) {
            case "json":
                return List.of(JSON);
            case "sql":
                return List.of(SQL);
            case "both":
                return List.of(JSON, SQL);
            default:
                throw new IllegalArgumentException("--path " + option + ": expected json, sql or both");
        }
    }

    /** Whether this path runs {@code phase} ({@code snapshot p1}, {@code snapshot p2}, {@code stream drain}, ...). */
    boolean runs(boolean quick, String phase) {
        return this == JSON || !quick || QUICK_SQL.contains(phase);
    }

    /** A figure's name on this path. */
    String figure(String name) {
        return this == SQL ? name + ", SQL" : name;
    }

    /** Whether the figure named {@code name} is this path's. */
    boolean owns(String name) {
        return name.endsWith(", SQL") == (this == SQL);
    }

    /** What a run's name has after its side. */
    String run() {
        return this == SQL ? "-sql" : "";
    }

    /** The arguments that select this path in a side's run. */
    List<String> args() {
        return this == SQL ? List.of("--path", "sql") : List.of();
    }
}
