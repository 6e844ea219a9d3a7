package io.rustcdc.flink.benchmark;

import io.rustcdc.benchmark.BenchmarkArgs;
import io.rustcdc.benchmark.BenchmarkRun;
import io.rustcdc.benchmark.DebeziumJson;
import io.rustcdc.benchmark.Measurement;
import io.rustcdc.benchmark.SqlPath;
import io.rustcdc.benchmark.cluster.WorkerCluster;
import io.rustcdc.flink.e2e.compat.JobSink;
import io.rustcdc.flink.mysql.MySqlConnector;
import io.rustcdc.flink.mysql.MySqlSourceConfig;
import io.rustcdc.flink.mysql.ServerFlavor;
import io.rustcdc.flink.postgres.PostgresConnector;
import io.rustcdc.flink.postgres.PostgresSourceConfig;
import io.rustcdc.flink.postgres.WalTransport;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.CdcSourceBuilder;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.TlsMode;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.spi.CdcConnector;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * One benchmark run of this project's source, into a sink that counts and discards: native JSON through the
 * DataStream API, or with {@code --path sql} RowData through Flink SQL ({@link OurSqlJob}).
 */
public final class OurBenchmark {
    private OurBenchmark() {}

    public static void main(String[] args) throws Exception {
        BenchmarkRun.main(args, OurBenchmark::start, OurBenchmark::commitMillis);
    }

    private static AutoCloseable start(BenchmarkArgs args) throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none"); // a failure fails the run
        conf.set(PipelineOptions.OBJECT_REUSE, args.has("object-reuse") && "true".equals(args.get("object-reuse")));
        StreamExecutionEnvironment env = WorkerCluster.environment(conf, args);
        env.setParallelism(args.getInt("parallelism"));
        env.enableCheckpointing(args.getLong("checkpoint-ms"));
        JobClient job = "floor".equals(args.get("phase")) ? submitFloor(env, args)
                : "limit-read".equals(args.get("phase")) ? submitLimitRead(env, args)
                : SqlPath.sql(args) ? OurSqlJob.submit(env, args) : submitJson(env, args);
        job.getJobExecutionResult().whenComplete((result, failure) -> Measurement.ended(failure));
        return () -> job.cancel().get(30, TimeUnit.SECONDS);
    }

    /**
     * Flink's own start, no database: a job of one record into the same sink, on the JSON path a DataStream
     * of one String, on the SQL path one generated row through the SQL path's tables ({@link OurSqlJob#submitFloor}).
     * Its first event's time from submission is what any source's figure pays before its first row. With {@code
     * --events} more than one, Flink's pace: that many ready records of {@code --document-length} ASCII characters
     * (one record, emitted again and again; bytes with {@code --json-output bytes}) from a sequence source of the
     * run's parallelism into the same sink: what a JSON source's figure pays besides reading and rendering.
     */
    private static JobClient submitFloor(StreamExecutionEnvironment env, BenchmarkArgs args) throws Exception {
        if (SqlPath.sql(args)) {
            return OurSqlJob.submitFloor(env, args);
        }
        long events = args.getLong("events");
        if (events == 1) {
            env.fromData("{}").sinkTo(new CountingSink<String>(OurBenchmark::commitMillis)).setParallelism(1);
            return env.executeAsync("benchmark floor");
        }
        String document = document(args.getInt("document-length"));
        if (args.has("json-output") && "bytes".equals(args.get("json-output"))) {
            byte[] bytes = document.getBytes(StandardCharsets.US_ASCII);
            env.fromSequence(1, events).map(n -> bytes).returns(byte[].class)
                    .sinkTo(new CountingSink<byte[]>(OurBenchmark::commitMillis)).setParallelism(1);
        } else {
            env.fromSequence(1, events).map(n -> document).returns(String.class)
                    .sinkTo(new CountingSink<String>(OurBenchmark::commitMillis)).setParallelism(1);
        }
        return env.executeAsync("benchmark pace");
    }

    /** Flink with the limit's own read, ready documents into the same sink ({@link LimitReadJob}). */
    private static JobClient submitLimitRead(StreamExecutionEnvironment env, BenchmarkArgs args) throws Exception {
        env.fromData(1).flatMap(new LimitReadJob(args, document(args.getInt("document-length")))).returns(String.class)
                .sinkTo(new CountingSink<String>(OurBenchmark::commitMillis)).setParallelism(1);
        return env.executeAsync("benchmark limit read");
    }

    /** A JSON document of {@code length} ASCII characters ({@code {"d":"xx...x"}}, at least 8). */
    static String document(int length) {
        return "{\"d\":\"" + "x".repeat(Math.max(0, length - 8)) + "\"}";
    }

    /**
     * The JSON path: the DataStream source rendering native JSON, as Strings or, with {@code --json-output
     * bytes}, as UTF-8 bytes ({@code jsonBytes()}), into a sink of parallelism 1 that counts.
     */
    private static JobClient submitJson(StreamExecutionEnvironment env, BenchmarkArgs args) throws Exception {
        return args.has("json-output") && "bytes".equals(args.get("json-output"))
                ? submitJson(env, args, ChangeEventDeserializer.jsonBytes(), OurBenchmark::commitMillis)
                : submitJson(env, args, ChangeEventDeserializer.json(), OurBenchmark::commitMillis);
    }

    private static <T> JobClient submitJson(StreamExecutionEnvironment env, BenchmarkArgs args,
            ChangeEventDeserializer<T> deserializer, CommitMillis<T> commitMillis) throws Exception {
        boolean mysqlFamily = args.mysqlFamily();
        StartupMode startup = "snapshot".equals(args.get("phase")) ? StartupMode.snapshot()
                : args.has("position") ? StartupMode.position(args.get("position")) : StartupMode.committed();
        String table = mysqlFamily ? args.get("database") + "." + args.get("table") : args.get("table");
        CdcSource<T, ?, ?> source = mysqlFamily ? source(mySql(args), table, startup, args, deserializer)
                : source(postgres(args), table, startup, args, deserializer);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "rustcdc")
                .sinkTo(new CountingSink<>(commitMillis)).setParallelism(1);
        return env.executeAsync("benchmark rustcdc");
    }

    private static <T, P extends SourcePosition & Comparable<P>, M extends Serializable> CdcSource<T, P, M> source(
            CdcConnector<P, M> connector, String table, StartupMode startup, BenchmarkArgs args,
            ChangeEventDeserializer<T> deserializer) {
        CdcSourceBuilder<T, P, M> builder = CdcSource.builder()
                .connector(connector)
                .includeTables(table)
                .startupMode(startup)
                .deserializer(deserializer);
        if (args.has("chunk-size")) {
            builder.chunkSize(args.getInt("chunk-size"));
        }
        return builder.build();
    }

    private static PostgresConnector postgres(BenchmarkArgs args) {
        return PostgresConnector.create(PostgresSourceConfig.builder()
                .hostname(args.get("host"))
                .port(args.getInt("port"))
                .database(args.get("database"))
                .username(args.get("user"))
                .password(Secret.of(args.get("password")))
                .slotName(args.get("slot"))
                .publicationName(args.get("publication"))
                .tlsMode(TlsMode.DISABLE)
                .walTransport(args.has("wal-transport") ? WalTransport.parse(args.get("wal-transport"))
                        : WalTransport.STREAMING)
                .build());
    }

    /**
     * MariaDB ({@code --connector mariadb}) or Oracle MySQL ({@code --connector mysql}), TLS off as on the
     * peer; on Oracle MySQL the server's RSA key is fetched for {@code caching_sha2_password}, as the
     * peer's Connector/J does ({@code allowPublicKeyRetrieval}).
     */
    private static MySqlConnector mySql(BenchmarkArgs args) {
        boolean mariaDb = "mariadb".equals(args.get("connector"));
        return MySqlConnector.create(MySqlSourceConfig.builder(mariaDb ? ServerFlavor.MARIADB : ServerFlavor.MYSQL)
                .hostname(args.get("host"))
                .port(args.getInt("port"))
                .username(args.get("user"))
                .password(Secret.of(args.get("password")))
                .serverId(args.getLong("server-id"))
                .tlsMode(TlsMode.DISABLE)
                .allowPublicKeyRetrieval(!mariaDb)
                .build());
    }

    /**
     * source.commit_time of a native JSON event, in milliseconds; for MariaDB, whose binlog keeps
     * whole seconds, and Oracle MySQL, the row's created_at, as on the peer's side (which reads it
     * from created_at on both).
     */
    static long commitMillis(String event) {
        if (event.contains("\"connector\":\"mariadb\"") || event.contains("\"connector\":\"mysql\"")) {
            return DebeziumJson.createdAtMillis(event);
        }
        int at = event.indexOf("\"commit_time\":\"") + 15;
        return Instant.parse(event.substring(at, event.indexOf('"', at))).toEpochMilli();
    }

    /** The commit time of a JSON document in bytes: {@link #commitMillis(String)} of its UTF-8 text. */
    static long commitMillis(byte[] event) {
        return commitMillis(new String(event, StandardCharsets.UTF_8));
    }

    /** An event's commit time in epoch milliseconds; travels with the job's sink. */
    private interface CommitMillis<T> extends ToLongFunction<T>, Serializable {}

    /** Counts each event; reads its commit time only while latency is measured. */
    private static final class CountingSink<T> extends JobSink<T> {
        private static final long serialVersionUID = 1L;
        private final CommitMillis<T> commitMillis;

        CountingSink(CommitMillis<T> commitMillis) {
            this.commitMillis = commitMillis;
        }

        @Override
        public SinkWriter<T> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(T event, Context context) {
                    Measurement.arrived(event, commitMillis);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
