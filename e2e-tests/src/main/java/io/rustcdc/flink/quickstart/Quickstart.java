package io.rustcdc.flink.quickstart;

import io.rustcdc.flink.e2e.compat.JobSink;
import io.rustcdc.flink.postgres.PostgresConnector;
import io.rustcdc.flink.postgres.PostgresSourceConfig;
import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresServer;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.SecretProvider;
import io.rustcdc.flink.source.TlsMode;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.json.JsonRenderer;
import io.rustcdc.flink.source.json.ShapeRendering;
import io.rustcdc.flink.source.model.ChangeEvent;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.util.Collector;

/**
 * The quickstart: a PostgreSQL with a small shop, a Flink job built with {@code CdcSource.builder()}
 * that snapshots it and streams every change as native JSON, and a writer that keeps changing rows.
 * Runs for {@code --seconds} (0: until Ctrl-C), then stops everything it started.
 *
 * <p>With {@code --hostname} it reads your own database instead (options below); nothing is written
 * to it.
 */
public final class Quickstart {
    private static volatile PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private Quickstart() {}

    public static void main(String[] args) throws Exception {
        run(args, new PrintStream(System.out, true, StandardCharsets.UTF_8));
        System.exit(0); // the embedded PostgreSQL stops with the JVM
    }

    /** Runs the quickstart, printing to {@code printTo}; returns when it has stopped what it started. */
    public static void run(String[] args, PrintStream printTo) throws Exception {
        out = printTo;
        Map<String, String> options = parse(args);
        long seconds = Long.parseLong(options.getOrDefault("seconds", "60"));
        boolean own = options.containsKey("hostname");
        banner("rustcdc for Apache Flink: quickstart");
        PostgresSourceConfig config;
        DemoShop shop = null;
        if (own) {
            config = PostgresSourceConfig.builder()
                    .hostname(options.get("hostname"))
                    .port(Integer.parseInt(options.getOrDefault("port", "5432")))
                    .database(require(options, "database"))
                    .username(require(options, "username"))
                    .password(options.containsKey("password-env") ? SecretProvider.environment(options.get("password-env"))
                            : Secret.of(require(options, "password")))
                    .slotName(require(options, "slot"))
                    .publicationName(require(options, "publication"))
                    .tlsMode(TlsMode.valueOf(options.getOrDefault("tls", "require").toUpperCase().replace('-', '_')))
                    .build();
            say("Reading your database " + config.database() + " at " + config.hostname() + ":" + config.port()
                    + " through slot '" + config.slotName() + "' and publication '" + config.publicationName() + "'.");
        } else {
            say("Starting an embedded PostgreSQL (binaries from Maven Central, wal_level=logical) ...");
            PostgresServer server = PostgresServer.shared();
            PostgresDatabase db = server.createDatabase("shop");
            shop = new DemoShop(db);
            shop.create();
            say("PostgreSQL " + server.majorVersion() + " runs on 127.0.0.1:" + server.port() + ", database '"
                    + db.name() + "' holds customers and orders.");
            config = PostgresSourceConfig.builder()
                    .hostname(db.host()).port(db.port()).database(db.name())
                    .username(db.replicationUser()).password(Secret.of(db.replicationPassword()))
                    .slotName("quickstart").publicationName("quickstart")
                    .createSlotIfMissing(true).createPublicationIfMissing(true)
                    .tlsMode(TlsMode.REQUIRE)
                    .build();
        }

        if (options.containsKey("sql")) {
            runSql(config, options.getOrDefault("tables", "public.orders"), seconds, shop);
            return;
        }
        CdcSource<String, ?, ?> source = CdcSource.builder()
                .connector(PostgresConnector.create(config))
                .includeTables(options.containsKey("tables") ? options.get("tables").split(",") : new String[0])
                .deserializer(new ReadableJson())
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(2_000);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "postgres changes").sinkTo(new PrintSink()).setParallelism(1);

        say("Starting a Flink job: it snapshots the tables (op \"read\"), then streams every change"
                + (own ? "." : " the writer makes (insert, update, delete) every half second."));
        say(seconds > 0 ? "It runs for " + seconds + " s; Ctrl-C stops it sooner." : "It runs until Ctrl-C.");
        banner("events: native JSON (type mapping v2); each table's full row shape once, then shape ids");
        JobClient job = env.executeAsync("rustcdc quickstart");
        DemoShop writer = shop;
        Thread stopper = new Thread(() -> stop(job, writer), "quickstart-stop");
        Runtime.getRuntime().addShutdownHook(stopper);
        if (shop != null) {
            shop.startWriting();
        }
        if (seconds > 0) {
            Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        } else {
            job.getJobExecutionResult().get();
        }
        Runtime.getRuntime().removeShutdownHook(stopper);
        stop(job, shop);
        banner("done: the job and the writer are stopped" + (own ? "" : "; PostgreSQL stops with this program"));
    }

    /**
     * The same through Flink SQL: the orders table declared with {@code 'connector' = 'rustcdc-postgres'}
     * and a continuous aggregate over it, printed as a changelog.
     */
    private static void runSql(PostgresSourceConfig config, String table, long seconds, DemoShop shop) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(2_000);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        // the embedded demo gets a slot and publication of its own; your database only what you gave
        String suffix = shop == null ? "" : "_sql";
        String create = shop == null ? "false" : "true";
        String ddl = "CREATE TABLE orders (\n"
                + "  id BIGINT, customer_id INT, amount DECIMAL(12,2), status STRING, placed_at TIMESTAMP_LTZ(6),\n"
                + "  tags ARRAY<STRING>,\n"
                + "  op_ts TIMESTAMP_LTZ(3) METADATA FROM 'op_ts' VIRTUAL,\n"
                + "  PRIMARY KEY (id) NOT ENFORCED\n"
                + ") WITH (\n"
                + "  'connector' = 'rustcdc-postgres', 'hostname' = '" + config.hostname() + "', 'port' = '"
                + config.port() + "',\n  'username' = '" + config.username() + "', 'password' = '******',\n"
                + "  'database-name' = '" + config.database() + "', 'table-name' = '" + table + "',\n"
                + "  'slot.name' = '" + config.slotName() + suffix + "', 'publication.name' = '" + config.publicationName()
                + suffix + "',\n  'slot.create-if-missing' = '" + create + "', 'publication.create-if-missing' = '"
                + create + "',\n"
                + "  'changelog-mode' = 'upsert', 'toast.reselect' = 'true', 'tls.mode' = '" + config.tlsMode() + "')";
        String query = "SELECT status, COUNT(*) AS orders, SUM(amount) AS total FROM orders GROUP BY status";
        say("Flink SQL:");
        out.println(ddl.replaceAll("(?m)^", "    ") + ";");
        out.println("    " + query + ";");
        tables.executeSql(ddl.replace("'******'", "'" + config.password().resolve().reveal() + "'"));
        banner("the query's changelog: +I / -U / +U / -D rows of (status, orders, total)");
        var result = tables.executeSql(query);
        JobClient job = result.getJobClient().orElseThrow();
        AtomicBoolean stopping = new AtomicBoolean();
        Thread printer = new Thread(() -> {
            try (var it = result.collect()) {
                it.forEachRemaining(row -> out.println(row));
            } catch (Exception e) {
                if (!stopping.get()) { // not our cancellation: say why the job ended
                    Throwable cause = e;
                    while (cause.getCause() != null) {
                        cause = cause.getCause();
                    }
                    say("The job failed: " + cause.getMessage());
                }
            }
        }, "quickstart-sql-printer");
        printer.setDaemon(true);
        printer.start();
        if (shop != null) {
            shop.startWriting();
        }
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds > 0 ? seconds : Long.MAX_VALUE / 2_000));
        stopping.set(true);
        stop(job, shop);
        banner("done: the job and the writer are stopped" + (shop == null ? "" : "; PostgreSQL stops with this program"));
    }

    private static void stop(JobClient job, DemoShop shop) {
        if (shop != null) {
            shop.stopWriting();
        }
        try {
            job.cancel().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            // the job may already be gone
        }
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("Options are --name value pairs: --seconds, --sql true, --hostname, "
                        + "--port, --database, --username, --password or --password-env, --slot, --publication, --tls, "
                        + "--tables");
            }
            options.put(args[i].substring(2), args[++i]);
        }
        return options;
    }

    private static String require(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("With --hostname, also give --" + name);
        }
        return value;
    }

    private static void banner(String text) {
        out.println();
        out.println("=== " + text + " " + "=".repeat(Math.max(0, 90 - text.length())));
    }

    private static void say(String text) {
        out.println("  " + text);
    }

    /** Prints each record on its own line. */
    static final class PrintSink extends JobSink<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<String> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(String element, Context context) {
                    out.println(element);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }

    /**
     * Native JSON with compact shapes (id, schema, table), after a line with the full shape the first
     * time a subtask meets it: the same information, easier on the eye.
     */
    static final class ReadableJson implements ChangeEventDeserializer<String> {
        private static final long serialVersionUID = 1L;
        private final JsonRenderer compact = JsonRenderer.builder().shapes(ShapeRendering.ID).build();
        private transient Set<String> shown;

        @Override
        public void deserialize(ChangeEvent event, Collector<String> out) {
            if (shown == null) {
                shown = new HashSet<>();
            }
            if (event.shape() != null && shown.add(event.shape().id())) {
                out.collect("-- row shape of " + event.table().qualifiedName() + ": " + compact.renderShape(event.shape()));
            }
            out.collect(new String(compact.render(event), StandardCharsets.UTF_8));
        }

        @Override
        public TypeInformation<String> producedType() {
            return Types.STRING;
        }
    }

    static Duration writePause() {
        return Duration.ofMillis(500);
    }
}
