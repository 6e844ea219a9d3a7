package io.rustcdc.flink.e2e;

import io.rustcdc.flink.postgres.PostgresConnector;
import io.rustcdc.flink.postgres.PostgresSourceConfig;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.TlsMode;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The job jar of the end-to-end tests, submitted to a session cluster with Flink's CLI: snapshots
 * and streams PostgreSQL tables with {@code CdcSource.builder()} and appends every change, as native
 * JSON, to a table of another database, exactly once (see {@link ChangelogTableSink}).
 *
 * <p>Options ({@code --name value}): hostname, port, database, username, password, slot,
 * publication, tables (comma-separated), chunk-size, parallelism, checkpoint-ms, sink-url,
 * sink-username, sink-password; optionally control-path and control-interval-ms (the snapshot control,
 * docs/operations.md).
 */
public final class ChangelogToTableJob {
    private ChangelogToTableJob() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> o = parse(args);
        PostgresSourceConfig config = PostgresSourceConfig.builder()
                .hostname(o.get("hostname"))
                .port(Integer.parseInt(o.get("port")))
                .database(o.get("database"))
                .username(o.get("username"))
                .password(Secret.of(o.get("password")))
                .slotName(o.get("slot"))
                .publicationName(o.get("publication"))
                .tlsMode(TlsMode.REQUIRE)
                .build();
        var builder = CdcSource.builder()
                .connector(PostgresConnector.create(config))
                .includeTables(o.get("tables").split(","))
                .chunkSize(Integer.parseInt(o.getOrDefault("chunk-size", "1000")))
                .deserializer(ChangeEventDeserializer.json());
        if (o.containsKey("control-path")) {
            builder.controlPath(o.get("control-path"))
                    .controlInterval(Duration.ofMillis(Long.parseLong(o.getOrDefault("control-interval-ms", "5000"))));
        }
        CdcSource<String, ?, ?> source = builder.build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(Integer.parseInt(o.getOrDefault("parallelism", "2")));
        env.enableCheckpointing(Long.parseLong(o.getOrDefault("checkpoint-ms", "1000")));
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "postgres changes").uid("postgres-changes")
                .sinkTo(new ChangelogTableSink(o.get("sink-url"), o.get("sink-username"), o.get("sink-password")))
                .uid("changelog-table").setParallelism(1);
        env.execute("rustcdc e2e: changelog to table");
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("Options are --name value pairs; found " + args[i]);
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }
}
