package io.rustcdc.flink.postgres;

import static io.rustcdc.flink.testing.SecretChecks.causeMessages;
import static io.rustcdc.flink.testing.SecretChecks.randomHex;
import static io.rustcdc.flink.testing.SecretChecks.randomPassword;
import static io.rustcdc.flink.testing.SecretChecks.serializedText;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.Secret;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.TlsMode;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.testing.CapturedLogs;
import io.rustcdc.flink.testing.FailingJob;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A password given by file is only named in the source and the job graph, is read at each
 * connection (so a rotated one is used from the next), and appears in no log line, through a
 * snapshot job, a failed login and a driver error.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(240)
class PostgresSecretsITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private PostgresDatabase db;
    private String role;
    private Path passwordFile;

    @BeforeEach
    void setUp(PostgresDatabase db, @TempDir Path dir) {
        this.db = db;
        this.role = "secret_" + db.name().replaceAll("[^a-z0-9]", "").substring(0, 6) + randomHex(3);
        this.passwordFile = dir.resolve("password");
        db.execute("DROP ROLE IF EXISTS " + role,
                "CREATE ROLE " + role + " LOGIN REPLICATION PASSWORD '" + randomPassword() + "'",
                "CREATE TABLE IF NOT EXISTS items (id int PRIMARY KEY, name text)",
                "INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 50) g ON CONFLICT DO NOTHING",
                "CREATE TABLE IF NOT EXISTS hidden (id int PRIMARY KEY)",
                "GRANT SELECT ON items TO " + role);
    }

    @Test
    void aRotatedPasswordFileIsUsedFromTheNextConnection() throws Exception {
        String first = randomPassword();
        String second = randomPassword();
        setPassword(first);
        Files.writeString(passwordFile, first + "\n", StandardCharsets.UTF_8);
        PostgresSourceConfig config = config();
        try (Connection c = PgConnections.open(config)) {
            assertThat(currentUser(c)).isEqualTo(role);
        }

        setPassword(second); // the server rotates first: the file still holds the old password
        assertThatThrownBy(() -> PgConnections.open(config).close()).isInstanceOf(CdcException.class)
                .hasMessageContaining("refused the login of " + role + "@")
                .satisfies(e -> assertThat(e.toString()).doesNotContain(first, second));

        Files.writeString(passwordFile, second + "\n", StandardCharsets.UTF_8);
        try (Connection c = PgConnections.open(config);
                Connection replication = PgConnections.openReplication(config)) {
            assertThat(currentUser(c)).isEqualTo(role);
            assertThat(replication.isValid(5)).isTrue();
        }
    }

    @Test
    void thePasswordIsInNeitherTheSourceNorTheJobGraphNorAnyLogLine() throws Exception {
        String password = randomPassword();
        setPassword(password);
        Files.writeString(passwordFile, password, StandardCharsets.UTF_8);
        CdcSource<String, PostgresPosition, PostgresChunkMark> source = source("public.items");

        assertThat(serializedText(source)).doesNotContain(password);
        StreamExecutionEnvironment env = environment();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "pg").print();
        StreamGraph graph = env.getStreamGraph();
        JobGraph jobGraph = graph.getJobGraph();
        assertThat(serializedText(jobGraph)).doesNotContain(password);
        assertThat(jobGraph.toString() + graph.getStreamingPlanAsJSON()).doesNotContain(password);
        // A literal password, by contrast, is part of the job graph, as documented.
        assertThat(serializedText(CdcSource.builder().connector(PostgresConnector.create(PostgresSourceConfig.builder()
                .hostname(db.host()).database(db.name()).username(role).password(Secret.of(password))
                .tlsMode(TlsMode.DISABLE).build())).build())).contains(password);

        String wrong = randomPassword();
        try (CapturedLogs logs = CapturedLogs.start("org.postgresql")) {
            assertThat(run(source("public.items"))).hasSize(50);

            Files.writeString(passwordFile, wrong, StandardCharsets.UTF_8); // a failed login
            assertThat(causeMessages(FailingJob.failureOf(environment(), source("public.items"))))
                    .anySatisfy(m -> assertThat(m).contains("refused the login of " + role));

            Files.writeString(passwordFile, password, StandardCharsets.UTF_8); // a prerequisite the source checks
            assertThat(causeMessages(FailingJob.failureOf(environment(), source("public.hidden"))))
                    .anySatisfy(m -> assertThat(m).contains("may not read \"public\".\"hidden\""));

            db.execute("REVOKE CONNECT ON DATABASE " + db.name() + " FROM PUBLIC"); // an error of the driver
            try {
                assertThat(causeMessages(FailingJob.failureOf(environment(), source("public.items"))))
                        .anySatisfy(m -> assertThat(m).contains("permission denied for database"));
            } finally {
                db.execute("GRANT CONNECT ON DATABASE " + db.name() + " TO PUBLIC");
            }

            assertThat(logs.lines()).hasSizeGreaterThan(100); // DEBUG of Flink and the driver were captured
            assertThat(logs.containing(role)).isNotEmpty();
            assertThat(logs.containing(password)).isEmpty();
            assertThat(logs.containing(wrong)).isEmpty();
        }
    }

    private List<String> run(CdcSource<String, PostgresPosition, PostgresChunkMark> source) throws Exception {
        List<String> records = new ArrayList<>();
        try (CloseableIterator<String> it = environment().fromSource(source, WatermarkStrategy.noWatermarks(), "pg")
                .executeAndCollect()) {
            it.forEachRemaining(records::add);
        }
        return records;
    }

    private static StreamExecutionEnvironment environment() {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        return env;
    }

    private CdcSource<String, PostgresPosition, PostgresChunkMark> source(String table) {
        return CdcSource.builder()
                .connector(PostgresConnector.create(config()))
                .includeTables(table)
                .chunkSize(16)
                .startupMode(StartupMode.snapshot())
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    /** As the SQL connector builds it: from options, with the password by file. */
    private PostgresSourceConfig config() {
        return PostgresSourceConfig.fromConfiguration(Configuration.fromMap(Map.of(
                "hostname", db.host(), "port", String.valueOf(db.port()), "database-name", db.name(),
                "username", role, "password.file", passwordFile.toString(), "tls.mode", "disable")));
    }

    private void setPassword(String password) {
        db.execute("ALTER ROLE " + role + " PASSWORD '" + password + "'");
    }

    private static String currentUser(Connection c) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT current_user")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
