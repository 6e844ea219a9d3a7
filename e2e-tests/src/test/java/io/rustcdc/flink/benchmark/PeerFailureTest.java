package io.rustcdc.flink.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A peer that fails (Flink CDC 3.5.0's mysql-cdc on Oracle MySQL 8.4 and later, which lack {@code SHOW
 * MASTER STATUS}) is reported as the peer's figure, with the root cause its log gives.
 */
class PeerFailureTest {

    @Test
    void theReasonIsTheLastCauseInTheLog() {
        List<String> log = List.of(
                "12:00:01 INFO  something started",
                "java.lang.IllegalStateException: The job failed",
                "\tat io.rustcdc.benchmark.BenchmarkRun.await(BenchmarkRun.java:99)",
                "Caused by: org.apache.flink.runtime.client.JobExecutionException: Job execution failed.",
                "\tat org.apache.flink.runtime.jobmaster.JobResult.toJobExecutionResult(JobResult.java:144)",
                "Caused by: org.apache.flink.util.FlinkRuntimeException: Cannot read the binlog filename and position"
                        + " via 'SHOW MASTER STATUS'. Make sure your server is correctly configured",
                "\t... 12 more",
                "Caused by: java.sql.SQLSyntaxErrorException: You have an error in your SQL syntax; check the manual"
                        + " that corresponds to your MySQL server version for the right syntax to use near 'MASTER"
                        + " STATUS' at line 1",
                "\tat com.mysql.cj.jdbc.exceptions.SQLError.createSQLException(SQLError.java:121)");
        assertThat(SideRunner.reason(log)).isEqualTo("java.sql.SQLSyntaxErrorException: You have an error in your SQL"
                + " syntax; check the manual that corresponds to your MySQL server version for the right syntax to use"
                + " near 'MASTER STATUS' at line 1");
    }

    @Test
    void withoutACauseTheLastExceptionIsTheReason() {
        assertThat(SideRunner.reason(List.of("java.lang.IllegalStateException: first",
                "java.lang.IllegalStateException: Timed out waiting for events: 20000; arrived 0", "\tat x.y(Z.java:1)")))
                .isEqualTo("java.lang.IllegalStateException: Timed out waiting for events: 20000; arrived 0");
        assertThat(SideRunner.reason(List.of("Killed"))).isEqualTo("no exception in its log");
        assertThat(SideRunner.reason(List.of("Caused by: java.lang.Error: " + "x".repeat(400)))).hasSize(300).endsWith("...");
    }

    @Test
    void aFailedPeerIsItsFigureAndHasNoRatio() {
        Figure figure = new Figure("snapshot p1", "rows/s");
        figure.ours.add(90_000.0);
        figure.limit.add(600_000.0);
        figure.peerFailure = "java.sql.SQLSyntaxErrorException: near 'MASTER STATUS' | at \"line\" 1";
        assertThat(figure.markdownRow()).isEqualTo("| snapshot p1 (rows/s) | 90,000 | peer fails: "
                + "java.sql.SQLSyntaxErrorException: near 'MASTER STATUS' / at \"line\" 1 | 600,000 | n/a | 0.15 |");
        assertThat(figure.json()).contains(",\"peer\":[],\"peer_failure\":\"java.sql.SQLSyntaxErrorException: near"
                + " 'MASTER STATUS' | at \\\"line\\\" 1\",\"limit\":[600000.0]}");
    }

    @Test
    void anUnknownDatabaseIsRefusedByName() {
        assertThatThrownBy(() -> Benchmark.target("oracle")).hasMessage("--database oracle: expected postgres, mariadb"
                + " or mysql");
    }
}
