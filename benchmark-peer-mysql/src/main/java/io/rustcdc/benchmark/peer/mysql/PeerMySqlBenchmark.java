package io.rustcdc.benchmark.peer.mysql;

import io.rustcdc.benchmark.BenchmarkArgs;
import io.rustcdc.benchmark.BenchmarkRun;
import io.rustcdc.benchmark.DebeziumJson;
import io.rustcdc.benchmark.Measurement;
import io.rustcdc.benchmark.SqlPath;
import io.rustcdc.benchmark.cluster.WorkerCluster;
import io.rustcdc.benchmark.peer.sql.PeerSqlJob;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.cdc.connectors.mysql.source.MySqlSource;
import org.apache.flink.cdc.connectors.mysql.table.StartupOptions;
import org.apache.flink.cdc.debezium.JsonDebeziumDeserializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;

/**
 * One benchmark run of Apache Flink CDC's mysql-cdc incremental source (incremental snapshot with its
 * default backfill, Debezium JSON), into a sink that counts and discards. The drain starts at the
 * binlog position given as {@code --position file:offset}. With {@code --path sql}, its {@code mysql-cdc} SQL
 * table (incremental snapshot on) into a counting SQL sink.
 */
public final class PeerMySqlBenchmark {
    private PeerMySqlBenchmark() {}

    public static void main(String[] args) throws Exception {
        BenchmarkRun.main(args, PeerMySqlBenchmark::start, DebeziumJson::createdAtMillis);
    }

    private static AutoCloseable start(BenchmarkArgs args) throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none"); // a failure fails the run
        StreamExecutionEnvironment env = WorkerCluster.environment(conf, args);
        env.setParallelism(args.getInt("parallelism"));
        env.enableCheckpointing(args.getLong("checkpoint-ms"));
        JobClient job = SqlPath.sql(args) ? PeerSqlJob.submit(env, args, sqlOptions(args)) : submitJson(env, args);
        job.getJobExecutionResult().whenComplete((result, failure) -> Measurement.ended(failure));
        return () -> job.cancel().get(30, TimeUnit.SECONDS);
    }

    private static JobClient submitJson(StreamExecutionEnvironment env, BenchmarkArgs args) throws Exception {
        String database = args.get("database");
        String table = args.get("table");
        long serverId = args.getLong("server-id");
        StartupOptions startup;
        if ("snapshot".equals(args.get("phase"))) {
            startup = StartupOptions.snapshot();
        } else {
            String position = args.get("position");
            int colon = position.lastIndexOf(':');
            startup = StartupOptions.specificOffset(position.substring(0, colon), Long.parseLong(position.substring(colon + 1)));
        }
        Properties jdbc = new Properties();
        jdbc.setProperty("useSSL", "false");
        jdbc.setProperty("allowPublicKeyRetrieval", "true");
        MySqlSource<String> source = MySqlSource.<String>builder()
                .hostname(args.get("host"))
                .port(args.getInt("port"))
                .databaseList(database)
                .tableList(database + "." + table)
                .username(args.get("user"))
                .password(args.get("password"))
                .serverId(serverIds(args))
                .serverTimeZone("UTC")
                .splitSize(args.getInt("chunk-size"))
                .startupOptions(startup)
                .jdbcProperties(jdbc)
                .deserializer(new JsonDebeziumDeserializationSchema())
                .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "flink-cdc mysql")
                .addSink(new CountingSink()).setParallelism(1);
        return env.executeAsync("benchmark peer mysql");
    }

    /** One server id per source subtask. */
    private static String serverIds(BenchmarkArgs args) {
        long serverId = args.getLong("server-id");
        return serverId + "-" + (serverId + args.getInt("parallelism") - 1);
    }

    /** The SQL path: a mysql-cdc table with the JSON path's settings, the incremental snapshot on. */
    private static Map<String, String> sqlOptions(BenchmarkArgs args) {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("connector", "mysql-cdc");
        o.put("hostname", args.get("host"));
        o.put("port", args.get("port"));
        o.put("username", args.get("user"));
        o.put("password", args.get("password"));
        o.put("database-name", args.get("database"));
        o.put("table-name", args.get("table"));
        o.put("server-id", serverIds(args));
        o.put("server-time-zone", "UTC");
        o.put("scan.incremental.snapshot.enabled", "true");
        o.put("scan.incremental.snapshot.chunk.size", args.get("chunk-size"));
        o.put("jdbc.properties.useSSL", "false");
        o.put("jdbc.properties.allowPublicKeyRetrieval", "true");
        if ("snapshot".equals(args.get("phase"))) {
            o.put("scan.startup.mode", "snapshot");
        } else {
            String position = args.get("position");
            int colon = position.lastIndexOf(':');
            o.put("scan.startup.mode", "specific-offset");
            o.put("scan.startup.specific-offset.file", position.substring(0, colon));
            o.put("scan.startup.specific-offset.pos", position.substring(colon + 1));
        }
        return o;
    }

    private static final class CountingSink implements SinkFunction<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void invoke(String value, Context context) {
            Measurement.arrived(value);
        }
    }
}
