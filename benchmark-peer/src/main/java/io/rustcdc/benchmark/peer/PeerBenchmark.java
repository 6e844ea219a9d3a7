package io.rustcdc.benchmark.peer;

import io.rustcdc.benchmark.BenchmarkArgs;
import io.rustcdc.benchmark.BenchmarkRun;
import io.rustcdc.benchmark.DebeziumJson;
import io.rustcdc.benchmark.Measurement;
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
 * snapshot with its default backfill, Debezium JSON), into a sink that counts and discards.
 */
public final class PeerBenchmark {
    private PeerBenchmark() {}

    public static void main(String[] args) throws Exception {
        BenchmarkRun.main(args, PeerBenchmark::start, DebeziumJson::commitMillis);
    }

    private static AutoCloseable start(BenchmarkArgs args) throws Exception {
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
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none"); // a failure fails the run
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(args.getInt("parallelism"));
        env.enableCheckpointing(args.getLong("checkpoint-ms"));
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "flink-cdc postgres")
                .addSink(new CountingSink()).setParallelism(1);
        JobClient job = env.executeAsync("benchmark peer");
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
