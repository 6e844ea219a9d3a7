package io.rustcdc.benchmark.peer;

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
import org.apache.flink.cdc.connectors.base.options.StartupOptions;
import org.apache.flink.cdc.connectors.postgres.source.PostgresSourceBuilder;
import org.apache.flink.cdc.debezium.JsonDebeziumDeserializationSchema;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;

/**
 * One benchmark run of Apache Flink CDC's postgres-cdc incremental source (pgoutput, incremental
 * snapshot with its default backfill, Debezium JSON), into a sink that counts and discards; with {@code
 * --path sql}, its {@code postgres-cdc} SQL table (incremental snapshot on) into a counting SQL sink.
 */
public final class PeerBenchmark {
    private PeerBenchmark() {}

    public static void main(String[] args) throws Exception {
        BenchmarkRun.main(args, PeerBenchmark::start, DebeziumJson::commitMillis);
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
        Properties debezium = new Properties();
        debezium.setProperty("publication.name", args.get("publication"));
        debezium.setProperty("publication.autocreate.mode", "disabled");
        debezium.setProperty("database.sslmode", "disable");
        String table = args.get("table");
        PostgresSourceBuilder.PostgresIncrementalSource<String> source =
                PostgresSourceBuilder.PostgresIncrementalSource.<String>builder()
                        .hostname(args.get("host"))
                        .port(args.getInt("port"))
                        .database(args.get("database"))
                        .schemaList(table.substring(0, table.indexOf('.')))
                        .tableList(table)
                        .username(args.get("user"))
                        .password(args.get("password"))
                        .slotName(args.get("slot"))
                        .decodingPluginName("pgoutput")
                        .splitSize(args.getInt("chunk-size"))
                        .startupOptions("snapshot".equals(args.get("phase")) ? StartupOptions.snapshot()
                                : StartupOptions.committed())
                        .debeziumProperties(debezium)
                        .deserializer(new JsonDebeziumDeserializationSchema())
                        .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "flink-cdc postgres")
                .addSink(new CountingSink()).setParallelism(1);
        return env.executeAsync("benchmark peer");
    }

    /** The SQL path: a postgres-cdc table with the JSON path's settings, the incremental snapshot on. */
    private static Map<String, String> sqlOptions(BenchmarkArgs args) {
        String table = args.get("table");
        Map<String, String> o = new LinkedHashMap<>();
        o.put("connector", "postgres-cdc");
        o.put("hostname", args.get("host"));
        o.put("port", args.get("port"));
        o.put("username", args.get("user"));
        o.put("password", args.get("password"));
        o.put("database-name", args.get("database"));
        o.put("schema-name", table.substring(0, table.indexOf('.')));
        o.put("table-name", table.substring(table.indexOf('.') + 1));
        o.put("slot.name", args.get("slot"));
        o.put("decoding.plugin.name", "pgoutput");
        o.put("scan.incremental.snapshot.enabled", "true");
        o.put("scan.incremental.snapshot.chunk.size", args.get("chunk-size"));
        o.put("scan.startup.mode", "snapshot".equals(args.get("phase")) ? "snapshot" : "committed-offset");
        o.put("debezium.publication.name", args.get("publication"));
        o.put("debezium.publication.autocreate.mode", "disabled");
        o.put("debezium.database.sslmode", "disable");
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
