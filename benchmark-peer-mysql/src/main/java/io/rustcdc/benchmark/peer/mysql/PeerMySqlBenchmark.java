package io.rustcdc.benchmark.peer.mysql;

import io.rustcdc.benchmark.BenchmarkArgs;
import io.rustcdc.benchmark.BenchmarkRun;
import io.rustcdc.benchmark.DebeziumJson;
import io.rustcdc.benchmark.Measurement;
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
 * binlog position given as {@code --position file:offset}.
 */
public final class PeerMySqlBenchmark {
    private PeerMySqlBenchmark() {}

    public static void main(String[] args) throws Exception {
        BenchmarkRun.main(args, PeerMySqlBenchmark::start, DebeziumJson::createdAtMillis);
    }

    private static AutoCloseable start(BenchmarkArgs args) throws Exception {
        String database = args.get("database");
        String table = args.get("table");
        int parallelism = args.getInt("parallelism");
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
                .serverId(serverId + "-" + (serverId + parallelism - 1))
                .serverTimeZone("UTC")
                .splitSize(args.getInt("chunk-size"))
                .startupOptions(startup)
                .jdbcProperties(jdbc)
                .deserializer(new JsonDebeziumDeserializationSchema())
                .build();
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none"); // a failure fails the run
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(args.getLong("checkpoint-ms"));
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "flink-cdc mysql")
                .addSink(new CountingSink()).setParallelism(1);
        JobClient job = env.executeAsync("benchmark peer mysql");
        job.getJobExecutionResult().whenComplete((result, failure) -> Measurement.ended(failure));
        return () -> job.cancel().get(30, TimeUnit.SECONDS);
    }

    private static final class CountingSink implements SinkFunction<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void invoke(String value, Context context) {
            Measurement.arrived(value);
        }
    }
}
