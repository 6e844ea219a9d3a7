package io.rustcdc.flink.benchmark;

import io.rustcdc.benchmark.BenchmarkArgs;
import io.rustcdc.benchmark.SqlPath;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * Our side's SQL path ({@code --path sql}): a {@code rustcdc-postgres}, {@code rustcdc-mariadb} or {@code
 * rustcdc-mysql} table with the JSON path's settings (table, chunk size, startup mode, slot or binlog
 * position, server id, parallelism, checkpoints), into {@link CountingSinkFactory}'s sink.
 */
final class OurSqlJob {
    private OurSqlJob() {}

    static JobClient submit(StreamExecutionEnvironment env, BenchmarkArgs args) {
        return insert(env, args, options(args));
    }

    /** Flink's own start on the SQL path: the same tables, the source one row of Flink's {@code datagen}. */
    static JobClient submitFloor(StreamExecutionEnvironment env, BenchmarkArgs args) {
        return insert(env, args, Map.of("connector", "datagen", "number-of-rows", "1"));
    }

    /** {@code INSERT INTO counted SELECT * FROM src}, {@code src} with the connector options {@code source}. */
    private static JobClient insert(StreamExecutionEnvironment env, BenchmarkArgs args, Map<String, String> source) {
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql(SqlPath.source(args, source));
        tables.executeSql(SqlPath.sink(args));
        return tables.executeSql(SqlPath.INSERT).getJobClient().orElseThrow();
    }

    private static Map<String, String> options(BenchmarkArgs args) {
        boolean snapshot = "snapshot".equals(args.get("phase"));
        Map<String, String> o = new LinkedHashMap<>();
        o.put("connector", args.mysqlFamily() ? "rustcdc-" + args.get("connector") : "rustcdc-postgres");
        o.put("hostname", args.get("host"));
        o.put("port", args.get("port"));
        o.put("username", args.get("user"));
        o.put("password", args.get("password"));
        o.put("database-name", args.get("database"));
        o.put("table-name", args.get("table"));
        o.put("tls.mode", "disable");
        if (args.has("chunk-size")) {
            o.put("scan.incremental.snapshot.chunk.size", args.get("chunk-size"));
        }
        if (args.mysqlFamily()) {
            o.put("server-id", args.get("server-id"));
            // Oracle MySQL's caching_sha2_password without TLS, as on the JSON path and the peer
            o.put("allow-public-key-retrieval", String.valueOf("mysql".equals(args.get("connector"))));
            o.put("scan.startup.mode", snapshot ? "snapshot" : "specific-offset");
            if (!snapshot) {
                o.put("scan.startup.specific-offset", args.get("position"));
            }
        } else {
            o.put("slot.name", args.get("slot"));
            o.put("publication.name", args.get("publication"));
            o.put("scan.startup.mode", snapshot ? "snapshot" : "committed-offset");
            if (args.has("wal-transport")) {
                o.put("wal.transport", args.get("wal-transport"));
            }
        }
        return o;
    }
}
