package io.rustcdc.flink.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The benchmark harness in its quick mode (small data, one run), on PostgreSQL, MariaDB and Oracle MySQL,
 * so that it cannot rot: every figure has every column it should (Flink's start and pace, measured without a
 * database, and Flink with the limit's read have ours alone). The SQL path (whose quick run is the p1
 * snapshot alone: about 30 s more at a load average of 2) is covered on PostgreSQL only, to keep CI in its time budget;
 * MariaDB and Oracle MySQL run the JSON path. The snapshots and Flink's pace run at p1 alone and the limit's read in
 * each format once (each side's runs in turn in one JVM of the side's, each a job of its own on its one MiniCluster). On
 * Oracle MySQL the peer (Flink CDC 3.5's mysql-cdc) fails, asking for {@code SHOW MASTER STATUS}, which 8.4 and later
 * refuse: its cells give that error (a quick run tries the peer only until it fails).
 */
@Timeout(900)
class BenchmarkQuickITCase {

    @Test
    void theQuickModeProducesTheWholeTable() throws Exception {
        assertTheWholeTable("postgres", "the COPY limit", "both");
    }

    @Test
    void theQuickModeOnMariaDbProducesTheWholeTable() throws Exception {
        assertTheWholeTable("mariadb", "the streaming SELECT limit", "json");
    }

    @Test
    void theQuickModeOnOracleMySqlProducesTheWholeTableWithThePeersFailure() throws Exception {
        assumeFalse(Boolean.getBoolean("rustcdc.e2e.oracle-mysql.skip"), "-Doracle-mysql.skip is set");
        assertTheWholeTable("mysql", "the streaming SELECT limit", "json");
    }

    /** @param path {@code both} where the SQL path is covered too, else {@code json} (CI's time budget) */
    private static void assertTheWholeTable(String database, String snapshotLimit, String path) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        String out = "target/benchmark-quick-" + database;
        Path report = Benchmark.run(new String[] {"--quick", "true", "--database", database, "--out", out,
            "--path", path},
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String md = Files.readString(report);
        List<String> rows = md.lines().filter(l -> l.startsWith("| ") && !l.startsWith("| figure")).toList();
        List<String> json = new ArrayList<>();
        json.add(Benchmark.FLOOR); // the JSON path's alone in a quick run
        json.addAll(throughput("snapshot p1", true));
        json.addAll(throughput(Benchmark.PACE + 1, false)); // a quick run's pace at p1 alone
        // a quick run's limit read: each format once, text over one connection and binary over two (the bigint key)
        json.addAll(throughput(Benchmark.limitReadFigure("text", 1), false));
        json.addAll(throughput(Benchmark.limitReadFigure("binary", 2), false));
        json.addAll(throughput("stream drain", true));
        json.addAll(List.of("latency p50 at 200 rows/s", "latency p99 at 200 rows/s", "latency max at 200 rows/s"));
        // the SQL path: the p1 snapshot alone in a quick run
        List<String> sql = throughput("snapshot p1, SQL", true);
        List<String> expected = new ArrayList<>(json);
        if (path.equals("both")) {
            expected.addAll(sql);
        }
        assertThat(rows).extracting(r -> r.substring(2, r.indexOf(" ("))).containsExactlyElementsOf(expected);
        for (String row : rows) {
            String[] cells = row.split("\\|");
            assertThat(cells[2].trim()).as("ours in %s", row).matches("[0-9.,]+");
            if (row.startsWith("| " + Benchmark.FLOOR + " (") || row.contains(Benchmark.PACE) // ours alone, no database
                    || row.contains(Benchmark.LIMIT_READ)) { // ours alone, the limit's read in the job
                assertThat(cells[3].trim() + cells[4].trim()).as("peer and limit in %s", row).isEqualTo("n/an/a");
            } else if (database.equals("mysql")) { // the peer's error where it has a figure, none for CPU (not measured)
                assertThat(cells[3].trim()).as("peer in %s", row).satisfiesAnyOf(
                        peer -> assertThat(peer).startsWith("peer fails: ").contains("MASTER STATUS"),
                        peer -> assertThat(row).containsAnyOf("CPU per event", "first event").contains("| n/a |"));
            } else {
                assertThat(cells[3].trim()).as("peer in %s", row).matches("[0-9.,]+");
            }
        }
        assertThat(row(rows, "snapshot p1").split("\\|")[4].trim()).as(snapshotLimit).matches("[0-9.,]+");
        assertThat(row(rows, "stream drain").split("\\|")[4].trim()).as("the raw stream limit").matches("[0-9.,]+");
        assertThat(md).contains("Hottest frames").contains("snapshot p1, ours: ");
        if (path.equals("both")) {
            assertThat(row(rows, "snapshot p1, SQL").split("\\|")[4].trim()).as(snapshotLimit + ", SQL path")
                    .matches("[0-9.,]+");
            assertThat(md).contains("snapshot p1, SQL, ours: ").contains("snapshot p1, SQL, peer: ");
        }
        assertThat(Path.of(out, "report.json")).exists();
    }

    /** A throughput figure's rows, in the report's order: speed, memory (where measured), CPU by thread, the start. */
    private static List<String> throughput(String speed, boolean memory) {
        List<String> rows = new ArrayList<>(List.of(speed));
        if (memory) {
            rows.addAll(List.of("peak heap, " + speed, "peak RSS, " + speed));
        }
        for (String cpu : List.of("", "task ", "reader ", "GC ", "JIT ", "database ", "database user ")) {
            rows.add(cpu + "CPU per event, " + speed);
        }
        rows.addAll(List.of("first event after, " + speed, "pace after the first event, " + speed));
        return rows;
    }

    private static String row(List<String> rows, String figure) {
        return rows.stream().filter(r -> r.startsWith("| " + figure + " (")).findFirst().orElseThrow();
    }
}
