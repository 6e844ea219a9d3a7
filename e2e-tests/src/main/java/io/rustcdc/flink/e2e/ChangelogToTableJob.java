package io.rustcdc.flink.e2e;

import io.rustcdc.flink.mysql.MySqlConnector;
import io.rustcdc.flink.mysql.MySqlSourceConfig;
import io.rustcdc.flink.mysql.ServerFlavor;
import io.rustcdc.flink.postgres.PostgresConnector;
import io.rustcdc.flink.postgres.PostgresSourceConfig;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.TlsMode;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.spi.CdcConnector;
import java.io.Serializable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The job jar of the end-to-end tests, submitted to a session cluster with Flink's CLI: snapshots
 * and streams PostgreSQL, MySQL or MariaDB tables with {@code CdcSource.builder()} and appends every
 * change, as native JSON, to a table of a PostgreSQL database, exactly once (see {@link ChangelogTableSink}).
 *
 * <p>Options ({@code --name value}): connector ({@code postgres}, the default, {@code mysql} or {@code
 * mariadb}), hostname, port, username, password, tables (comma-separated: {@code schema.table} on
 * PostgreSQL, {@code database.table} on MySQL and MariaDB), chunk-size, parallelism, checkpoint-ms,
 * sink-url, sink-username, sink-password; on PostgreSQL database, slot and publication; on MySQL and
 * MariaDB server-id; optionally control-path and control-interval-ms (the snapshot control,
 * docs/operations.md).
 */
public final class ChangelogToTableJob {
    private ChangelogToTableJob() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> o = parse(args);
        String connector = o.getOrDefault("connector", "postgres");
        CdcSource<String, ?, ?> source;
        switch (connector) {
            case "postgres":
                source = source(postgres(o), o);
                break;
            case "mysql":
            case "mariadb":
                source = source(mySql(connector.equals("mysql") ? ServerFlavor.MYSQL : ServerFlavor.MARIADB, o), o);
                break;
            default:
                throw new IllegalArgumentException("--connector is '" + connector + "': use postgres, mysql or mariadb");
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(Integer.parseInt(o.getOrDefault("parallelism", "2")));
        env.enableCheckpointing(Long.parseLong(o.getOrDefault("checkpoint-ms", "1000")));
        // the operator ids of the PostgreSQL job as they were, so that its savepoints restore
        String sourceId = connector.equals("postgres") ? "postgres-changes" : connector + "-changes";
        env.fromSource(source, WatermarkStrategy.noWatermarks(), connector + " changes").uid(sourceId)
                .sinkTo(new ChangelogTableSink(o.get("sink-url"), o.get("sink-username"), o.get("sink-password")))
                .uid("changelog-table").setParallelism(1);
        env.execute("rustcdc e2e: " + connector + " changelog to table");
    }

    private static <P extends SourcePosition & Comparable<P>, M extends Serializable> CdcSource<String, P, M> source(
            CdcConnector<P, M> connector, Map<String, String> o) {
        var builder = CdcSource.builder()
                .connector(connector)
                .includeTables(o.get("tables").split(","))
                .chunkSize(Integer.parseInt(o.getOrDefault("chunk-size", "1000")))
                .deserializer(ChangeEventDeserializer.json());
        if (o.containsKey("control-path")) {
            builder.controlPath(o.get("control-path"))
                    .controlInterval(Duration.ofMillis(Long.parseLong(o.getOrDefault("control-interval-ms", "5000"))));
        }
        return builder.build();
    }

    private static PostgresConnector postgres(Map<String, String> o) {
        return PostgresConnector.create(PostgresSourceConfig.builder()
                .hostname(o.get("hostname"))
                .port(Integer.parseInt(o.get("port")))
                .database(o.get("database"))
                .username(o.get("username"))
                .password(Secret.of(o.get("password")))
                .slotName(o.get("slot"))
                .publicationName(o.get("publication"))
                .tlsMode(TlsMode.REQUIRE)
                .build());
    }

    private static MySqlConnector mySql(ServerFlavor flavor, Map<String, String> o) {
        return MySqlConnector.create(MySqlSourceConfig.builder(flavor)
                .hostname(o.get("hostname"))
                .port(Integer.parseInt(o.get("port")))
                .username(o.get("username"))
                .password(Secret.of(o.get("password")))
                .serverId(Long.parseLong(o.get("server-id")))
                .build());
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
