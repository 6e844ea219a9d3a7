package io.rustcdc.benchmark;

import java.util.Map;
import java.util.stream.Collectors;

/**
 * The SQL path of a run ({@code --path sql}), the same on both sides: a table {@code src} over the run's
 * table with the side's CDC connector, and {@code INSERT INTO counted SELECT * FROM src}, where {@code
 * counted} is a sink of the side's {@code benchmark-count} connector, which counts rows and discards them.
 * The columns are those of the benchmark's tables (BIGINT, INT, INT, DECIMAL(12,4), STRING,
 * TIMESTAMP_LTZ(6), STRING for the JSON, and on {@code bench} keyed by text a STRING {@code code}); a
 * latency run on PostgreSQL adds the commit time as metadata column {@code op_ts}.
 */
public final class SqlPath {
    /** The counting sink's connector, each side's own. */
    public static final String SINK_CONNECTOR = "benchmark-count";
    /** The sink's option naming the column whose TIMESTAMP_LTZ value is the row's commit time. */
    public static final String COMMIT_TIME_COLUMN = "commit-time-column";
    public static final String INSERT = "INSERT INTO counted SELECT * FROM src";

    private SqlPath() {}

    /** Whether the run reads through Flink SQL into RowData ({@code --path sql}) rather than into JSON. */
    public static boolean sql(BenchmarkArgs args) {
        return args.has("path") && "sql".equals(args.get("path"));
    }

    /** {@code CREATE TABLE src (...) WITH (...)}, with the side's connector options. */
    public static String source(BenchmarkArgs args, Map<String, String> options) {
        return "CREATE TABLE src (" + columns(args, true) + ") WITH (" + with(options) + ")";
    }

    /**
     * {@code CREATE TABLE counted (...)}: the side's counting sink, with every column and the primary key of
     * {@code src} (Flink requires the key where a changelog meets a sink of another parallelism, at p2: it then
     * shuffles the rows to the sink by key, where the JSON path's sink gets them round-robin).
     */
    public static String sink(BenchmarkArgs args) {
        return "CREATE TABLE counted (" + columns(args, false) + ") WITH (" + with(Map.of("connector",
                SINK_CONNECTOR, COMMIT_TIME_COLUMN, commitTimeColumn(args))) + ")";
    }

    /**
     * The column the latency is read from: {@code op_ts} (the commit time) on PostgreSQL; on MariaDB, whose
     * binlog keeps whole seconds, and Oracle MySQL, the row's {@code created_at}, as on the JSON path.
     */
    static String commitTimeColumn(BenchmarkArgs args) {
        return args.mysqlFamily() ? "created_at" : "op_ts";
    }

    private static String columns(BenchmarkArgs args, boolean source) {
        boolean bench = args.get("table").endsWith("bench");
        String key = bench && args.has("key") ? args.get("key") : "bigint";
        StringBuilder c = new StringBuilder("id BIGINT NOT NULL, qty INT NOT NULL, b INT, price DECIMAL(12, 4) NOT NULL, "
                + "note STRING, created_at TIMESTAMP_LTZ(6) NOT NULL, attrs STRING");
        if (!"bigint".equals(key)) {
            c.append(", code STRING NOT NULL");
        }
        if (!args.mysqlFamily() && "latency".equals(args.get("phase"))) {
            c.append(source ? ", op_ts TIMESTAMP_LTZ(3) METADATA FROM 'op_ts' VIRTUAL" : ", op_ts TIMESTAMP_LTZ(3)");
        }
        // the sink too: a changelog into a sink of parallelism 1 behind a source of parallelism 2 is shuffled by key
        c.append(", PRIMARY KEY (").append("text".equals(key) ? "code" : "composite".equals(key) ? "qty, code" : "id")
                .append(") NOT ENFORCED");
        return c.toString();
    }

    private static String with(Map<String, String> options) {
        return options.entrySet().stream()
                .map(e -> "'" + e.getKey() + "' = '" + e.getValue().replace("'", "''") + "'")
                .collect(Collectors.joining(", "));
    }
}
