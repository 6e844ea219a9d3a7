package io.rustcdc.flink.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.rustcdc.flink.mysql.testing.MySqlServer;
import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.testing.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A DataStream job jar, built by this build, submitted with Flink's CLI to a session cluster of
 * separate JobManager and TaskManager processes: the snapshot and the stream of a table under
 * concurrent writes arrive exactly once in a table of another database, also when the TaskManager
 * process is killed and replaced, and across a stop with savepoint and a restart from it; and the
 * same jar reading a MariaDB table and an Oracle MySQL one ({@code -Doracle-mysql.skip} leaves that out)
 * arrives exactly once too.
 */
@ExtendWith(PostgresExtension.class)
@Tag("cluster")
@Timeout(600)
class JobJarClusterITCase {
    private static final Path JOB_JAR = Path.of(System.getProperty("rustcdc.e2e.job.jar", "target/e2e-job.jar"));
    private static final String MAIN = "io.rustcdc.flink.e2e.ChangelogToTableJob";
    /** A slot gauge of the source in the Prometheus text format: its name after the scope, and its value. */
    private static final Pattern SLOT_GAUGE = Pattern.compile(
            "(?m)^flink_taskmanager_job_task_operator_postgres_(slot\\w+)\\{[^}]*\\} (\\S+)$");
    private static final Pattern SAVEPOINT = Pattern.compile("Savepoint completed\\. Path: (\\S+)");

    @RegisterExtension
    static final FlinkClusterExtension CLUSTER = FlinkClusterExtension.forJobJars();

    @Test
    void aMariaDbJobJarCapturesTheSnapshotAndTheStreamExactly(PostgresDatabase db) throws Exception {
        mySqlFamilyJobJar(db, "mariadb", 5701);
    }

    @Test
    void anOracleMySqlJobJarCapturesTheSnapshotAndTheStreamExactly(PostgresDatabase db) throws Exception {
        assumeFalse(Boolean.getBoolean("rustcdc.e2e.oracle-mysql.skip"), "-Doracle-mysql.skip is set");
        mySqlFamilyJobJar(db, "mysql", 5702);
    }

    private static void mySqlFamilyJobJar(PostgresDatabase db, String flavor, long serverId) throws Exception {
        FlinkCluster cluster = CLUSTER.cluster();
        ReplicatedOrders orders = ReplicatedOrders.createMySql(MySqlServer.shared(flavor), serverId, db.server(),
                "cli_" + flavor, 3_000);
        String job = cluster.submit(JOB_JAR, MAIN, orders.jobArgs());
        try (OrderWriter writer = new OrderWriter(orders.source(), 4)) {
            cluster.awaitRunning(job);
            writer.awaitTransactions(300);
            orders.awaitStreamedChanges();
        }
        orders.awaitSinkEqualsSource();
        assertThat(orders.ops()).containsKeys("read", "insert", "update", "delete");
        cluster.cancel(job);
    }

    /**
     * The alerts of docs/operations.md are built from numeric gauges as Flink's Prometheus reporter
     * exports them (a String gauge it exports as 0, so none is alerted on): the streaming subtask's slot
     * gauges, with a healthy slot's values.
     */
    private static void assertSlotGaugesAreScraped(FlinkCluster cluster) throws Exception {
        Map<String, Double> gauges = new HashMap<>();
        Poll.until("the slot gauges in a Prometheus scrape", Duration.ofSeconds(60), () -> {
            gauges.clear();
            Matcher m = SLOT_GAUGE.matcher(cluster.prometheusMetrics());
            while (m.find()) {
                gauges.put(m.group(1), Double.valueOf(m.group(2)));
            }
            return gauges.containsKey("slotWalStatusCode") && gauges.get("slotWalStatusCode") >= 0;
        });
        assertThat(gauges).containsEntry("slotWalStatusCode", 0.0).containsEntry("slotWalStatusReserved", 1.0)
                .containsEntry("slotWalStatusLost", 0.0).containsKeys("slotLagBytes", "slotSafeWalSizeBytes");
        assertThat(gauges.get("slotLagBytes")).isGreaterThanOrEqualTo(0.0);
    }

    /**
     * The job jar submitted with the CLI: the snapshot and the stream arrive exactly, also across a
     * TaskManager killed while it streams and replaced; the replacement's slot gauges are scraped.
     */
    @Test
    void aKilledTaskManagerIsReplacedAndTheJobRecoversExactlyFromItsCheckpoint(PostgresDatabase db) throws Exception {
        FlinkCluster cluster = CLUSTER.cluster();
        ReplicatedOrders orders = ReplicatedOrders.create(db.server(), "tm_kill", 3_000);
        String job = cluster.submit(JOB_JAR, MAIN, orders.jobArgs());
        try (OrderWriter writer = new OrderWriter(orders.source(), 2)) {
            cluster.awaitRunning(job);
            writer.awaitTransactions(200);
            orders.awaitStreamedChanges();
            cluster.awaitCheckpoints(job, 2);
            cluster.killTaskManager(); // while the job streams and the writer writes
            writer.awaitTransactions(200);
            cluster.startTaskManager();
            cluster.awaitRunning(job);
            writer.awaitTransactions(200);
        }
        orders.awaitSinkEqualsSource();
        assertThat(orders.ops()).containsKeys("read", "insert", "update", "delete");
        assertSlotGaugesAreScraped(cluster);
        cluster.cancel(job);
    }

    @Test
    void stopWithSavepointAndRestartFromItLosesAndDuplicatesNothing(PostgresDatabase db) throws Exception {
        FlinkCluster cluster = CLUSTER.cluster();
        ReplicatedOrders orders = ReplicatedOrders.create(db.server(), "savepoint", 3_000);
        String job = cluster.submit(JOB_JAR, MAIN, orders.jobArgs());
        String restarted;
        try (OrderWriter writer = new OrderWriter(orders.source(), 3)) {
            cluster.awaitRunning(job);
            writer.awaitTransactions(200);
            cluster.awaitCheckpoints(job, 1);
            String stopped = cluster.cli("stop", "--savepointPath", cluster.dir().resolve("savepoints").toUri().toString(), job);
            Matcher m = SAVEPOINT.matcher(stopped);
            assertThat(m.find()).as("flink stop printed a savepoint path:\n%s", stopped).isTrue();
            writer.awaitTransactions(300); // while no job runs
            List<String> run = new ArrayList<>(List.of("run", "-d", "-s", m.group(1), "-c", MAIN, JOB_JAR.toString()));
            run.addAll(List.of(orders.jobArgs()));
            restarted = FlinkCluster.jobId(cluster.cli(run.toArray(new String[0])));
            cluster.awaitRunning(restarted);
            writer.awaitTransactions(200);
        }
        orders.awaitSinkEqualsSource();
        cluster.cli("cancel", restarted);
    }
}
