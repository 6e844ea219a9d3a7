package io.rustcdc.flink.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.source.control.ControlRequest;
import io.rustcdc.flink.source.control.ControlResult;
import io.rustcdc.flink.source.control.SnapshotControl;
import io.rustcdc.flink.source.control.TableReadout;
import io.rustcdc.flink.testing.ControlBatch;
import io.rustcdc.flink.testing.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snapshot control on a job jar running on a session cluster, under a writer: every operation from
 * the command line a user runs beside the cluster (docs/operations.md), and from the client API; the
 * changelog in the sink ends at the source's rows, exact but for what a re-snapshot delivers again.
 */
@ExtendWith(PostgresExtension.class)
@Tag("cluster")
@Timeout(600)
class JobJarSnapshotControlClusterITCase {
    private static final Path JOB_JAR = Path.of(System.getProperty("rustcdc.e2e.job.jar", "target/e2e-job.jar"));
    private static final String MAIN = "io.rustcdc.flink.e2e.ChangelogToTableJob";
    private static final String ORDERS = "public.orders";

    @RegisterExtension
    static final FlinkClusterExtension CLUSTER = FlinkClusterExtension.forJobJars();

    @Test
    void everyOperationOnARunningJobUnderAWriter(PostgresDatabase db, @TempDir Path control) throws Exception {
        FlinkCluster cluster = CLUSTER.cluster();
        ReplicatedOrders orders = ReplicatedOrders.create(db.server(), "ctl", 3_000);
        String path = control.toUri().toString();
        List<String> args = new ArrayList<>(Arrays.asList(orders.jobArgs()));
        args.addAll(List.of("--control-path", path, "--control-interval-ms", "300"));
        int chunkSize = args.indexOf("--chunk-size") + 1;
        args.set(chunkSize, "100"); // a re-snapshot of some chunks, long enough to pause it
        String job = cluster.submit(JOB_JAR, MAIN, args.toArray(new String[0]));
        SnapshotControl client = SnapshotControl.at(path);
        try (OrderWriter writer = new OrderWriter(orders.source(), 7)) {
            cluster.awaitRunning(job);
            Poll.until("the first snapshot, in the state readout", Duration.ofMinutes(2),
                    () -> status(client).equals("captured"));
            writer.awaitTransactions(100);
            assertThat(orders.violationsNow()).as("the first snapshot and the stream are exact").isEmpty();

            // requested with a row filter and paused in one poll (the client API): no chunk is read
            ControlBatch.send(control, ControlRequest.request("a1-request", List.of(ORDERS), Map.of(ORDERS, "id % 2 = 0")),
                    ControlRequest.of("a2-pause", ControlRequest.Operation.PAUSE, List.of(ORDERS)));
            assertThat(client.awaitResult("a1-request", Duration.ofMinutes(1)).previous())
                    .containsEntry(ORDERS, "captured");
            ControlResult paused = client.awaitResult("a2-pause", Duration.ofMinutes(1));
            assertThat(paused.applied()).isTrue();
            assertThat(paused.previous().get(ORDERS)).isIn("queued", "snapshotting");
            Poll.until("the pause, in the state readout", Duration.ofMinutes(1), () -> status(client).equals("paused"));
            assertThat(state(cluster, path)).as("the command line's readout, with the filter in effect")
                    .contains(ORDERS + "\tpaused\t", "id % 2 = 0");
            int reads = orders.opsNow().getOrDefault("read", 0);
            Thread.sleep(3_000);
            assertThat(orders.opsNow().getOrDefault("read", 0)).as("no row is read while paused").isEqualTo(reads);

            // the command line: resume; the re-snapshot of the even ids ends
            String resumed = control(cluster, 0, path, "resume", ORDERS);
            assertThat(resumed).contains("outcome=applied", "previous." + ORDERS + "=paused");
            Poll.until("the re-snapshot's end, in the state readout", Duration.ofMinutes(2),
                    () -> status(client).equals("captured"));
            Poll.until("the even ids delivered again", Duration.ofMinutes(1),
                    () -> orders.opsNow().getOrDefault("read", 0) - reads > 1_000);

            // the command line: a request with a row filter, read to its end
            assertThat(control(cluster, 0, path, "request", "--filter", ORDERS, "id % 3 = 0"))
                    .contains("outcome=applied", "previous." + ORDERS + "=captured");
            Poll.until("the filtered re-snapshot's end, in the state readout", Duration.ofMinutes(2),
                    () -> status(client).equals("captured"));

            // requested and every snapshot paused in one poll, then stopped from the command line, twice
            ControlBatch.send(control, ControlRequest.of("b1-request", ControlRequest.Operation.REQUEST, List.of(ORDERS)),
                    ControlRequest.of("b2-pause", ControlRequest.Operation.PAUSE, List.of()));
            assertThat(client.awaitResult("b2-pause", Duration.ofMinutes(1)).applied()).isTrue();
            assertThat(control(cluster, 0, path, "stop", ORDERS)).contains("outcome=applied",
                    "previous." + ORDERS + "=paused");
            assertThat(control(cluster, 0, path, "stop", ORDERS)).as("idempotent")
                    .contains("previous." + ORDERS + "=stopped");
            assertThat(status(client)).isEqualTo("stopped");
            assertThat(control(cluster, 1, path, "request", "public.nope")).contains("outcome=rejected", "public.nope");
            writer.awaitTransactions(100);
        }
        orders.awaitSinkEqualsSource(true);
        assertThat(orders.ops()).containsKeys("read", "insert", "update", "delete");
        cluster.cancel(job);
    }

    /** The table's status in the state readout, read by the client API (no JVM started). */
    private static String status(SnapshotControl client) {
        return client.state().stream().filter(t -> t.table().equals(ORDERS)).findFirst().map(TableReadout::status)
                .orElse("absent");
    }

    private static String state(FlinkCluster cluster, String path) throws Exception {
        return control(cluster, 0, path, "state");
    }

    private static String control(FlinkCluster cluster, int exit, String... args) throws Exception {
        Map.Entry<Integer, String> r = cluster.control(JOB_JAR, args);
        assertThat(r.getKey()).as("SnapshotControl %s exited with %s: %s", List.of(args), r.getKey(), r.getValue())
                .isEqualTo(exit);
        return r.getValue();
    }
}
