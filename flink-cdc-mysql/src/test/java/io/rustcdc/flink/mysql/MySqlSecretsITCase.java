package io.rustcdc.flink.mysql;

import static io.rustcdc.flink.testing.SecretChecks.causeMessages;
import static io.rustcdc.flink.testing.SecretChecks.randomHex;
import static io.rustcdc.flink.testing.SecretChecks.randomPassword;
import static io.rustcdc.flink.testing.SecretChecks.serializedText;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import io.rustcdc.flink.mysql.binlog.BinlogClients;
import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.StartupMode;
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
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
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
 * connection, the binlog's included (so a rotated one is used from the next), and appears in no
 * log line, through a snapshot job, a failed login and a driver error.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(240)
class MySqlSecretsITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());
    private static final AtomicLong SERVER_IDS = new AtomicLong(9000 + (ProcessHandle.current().pid() % 1000) * 1000);

    private MySqlDatabase db;
    private String user;
    private Path passwordFile;

    @BeforeEach
    void setUp(MySqlDatabase db, @TempDir Path dir) {
        this.db = db;
        this.user = "secret_" + randomHex(4);
        this.passwordFile = dir.resolve("password");
        db.execute("CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + randomPassword() + "'",
                "GRANT " + MySqlServer.CDC_GRANTS + " ON *.* TO '" + user + "'@'%'",
                "CREATE TABLE IF NOT EXISTS items (id INT PRIMARY KEY, name VARCHAR(20))",
                "INSERT IGNORE INTO items VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four'), (5, 'five')");
    }

    @Test
    void aRotatedPasswordFileIsUsedFromTheNextConnectionTheBinlogsToo() throws Exception {
        String first = randomPassword();
        String second = randomPassword();
        setPassword(first);
        Files.writeString(passwordFile, first + "\n", StandardCharsets.UTF_8);
        MySqlSourceConfig config = config();
        try (Connection c = MySqlConnections.connect(config)) {
            assertThat(currentUser(c)).startsWith(user + "@");
        }
        connectBinlog(config);

        setPassword(second); // the server rotates first: the file still holds the old password
        assertThatThrownBy(() -> MySqlConnections.connect(config).close()).isInstanceOf(CdcException.class)
                .hasMessageContaining("as '" + user + "'")
                .satisfies(e -> assertThat(e.toString()).doesNotContain(first, second));
        assertThatThrownBy(() -> connectBinlog(config)).satisfies(e -> assertThat(e.toString())
                .doesNotContain(first, second));

        Files.writeString(passwordFile, second + "\n", StandardCharsets.UTF_8);
        try (Connection c = MySqlConnections.connect(config)) {
            assertThat(currentUser(c)).startsWith(user + "@");
        }
        connectBinlog(config);
    }

    @Test
    void thePasswordIsInNeitherTheSourceNorTheJobGraphNorAnyLogLine() throws Exception {
        String password = randomPassword();
        setPassword(password);
        Files.writeString(passwordFile, password, StandardCharsets.UTF_8);
        CdcSource<String, MySqlPosition, MySqlPosition> source = source();

        assertThat(serializedText(source)).doesNotContain(password);
        StreamExecutionEnvironment env = environment();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "mysql").print();
        StreamGraph graph = env.getStreamGraph();
        assertThat(serializedText(graph.getJobGraph())).doesNotContain(password);

        String wrong = randomPassword();
        try (CapturedLogs logs = CapturedLogs.start("")) {
            assertThat(run(source())).hasSize(5);

            Files.writeString(passwordFile, wrong, StandardCharsets.UTF_8); // a failed login
            assertThat(causeMessages(FailingJob.failureOf(environment(), source())))
                    .anySatisfy(m -> assertThat(m).contains("as '" + user + "'", "Check host, port, user and password"));

            Files.writeString(passwordFile, password, StandardCharsets.UTF_8); // an error of the driver mid-session
            db.execute("ALTER USER '" + user + "'@'%' WITH MAX_QUERIES_PER_HOUR 3", "FLUSH USER_RESOURCES");
            try {
                assertThat(causeMessages(FailingJob.failureOf(environment(), source())))
                        .anySatisfy(m -> assertThat(m).contains("has exceeded the '"));
            } finally {
                db.execute("ALTER USER '" + user + "'@'%' WITH MAX_QUERIES_PER_HOUR 0", "FLUSH USER_RESOURCES");
            }

            assertThat(logs.lines()).hasSizeGreaterThan(100); // DEBUG of Flink and the driver were captured
            assertThat(logs.containing(user)).isNotEmpty();
            assertThat(logs.containing(password)).isEmpty();
            assertThat(logs.containing(wrong)).isEmpty();
        }
    }

    private void connectBinlog(MySqlSourceConfig config) throws Exception {
        List<String> end = db.binlogStatus();
        BinaryLogClient client = BinlogClients.create(config, end.get(0), Long.parseLong(end.get(1)), e -> { },
                e -> { });
        client.connect(10_000);
        client.disconnect();
    }

    private List<String> run(CdcSource<String, MySqlPosition, MySqlPosition> source) throws Exception {
        List<String> records = new ArrayList<>();
        try (CloseableIterator<String> it = environment().fromSource(source, WatermarkStrategy.noWatermarks(), "mysql")
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

    private CdcSource<String, MySqlPosition, MySqlPosition> source() {
        return CdcSource.builder()
                .connector(MySqlConnector.create(config()))
                .includeTables(db.name() + ".items")
                .chunkSize(2)
                .startupMode(StartupMode.snapshot())
                .deserializer(ChangeEventDeserializer.json())
                .build();
    }

    /** As the SQL connector builds it: from options, with the password by file. */
    private MySqlSourceConfig config() {
        return MySqlSourceConfig.fromConfiguration(db.server().isMariaDb() ? ServerFlavor.MARIADB : ServerFlavor.MYSQL,
                Configuration.fromMap(Map.of("hostname", db.host(), "port", String.valueOf(db.port()),
                        "username", user, "password.file", passwordFile.toString(),
                        "server-id", String.valueOf(SERVER_IDS.incrementAndGet()))));
    }

    private void setPassword(String password) {
        db.execute("ALTER USER '" + user + "'@'%' IDENTIFIED BY '" + password + "'");
    }

    private static String currentUser(Connection c) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT CURRENT_USER()")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
