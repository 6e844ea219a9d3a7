package io.rustcdc.flink.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import io.rustcdc.flink.testing.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shaded MySQL/MariaDB SQL connector jar in the lib/ folder of a session cluster, a script run
 * with Flink's SQL client declaring the table with {@code 'connector' = 'rustcdc-mariadb'} (on
 * MariaDB) or {@code 'rustcdc-mysql'} (on Oracle MySQL) in {@code upsert} changelog mode, a writer
 * changing it, and the TaskManager killed with SIGKILL and replaced while the job streams: the
 * changelog the print sink wrote, applied in order, ends equal to the table, row by row; then the binlog
 * gauges the alerts of docs/operations.md are built from show the stream at the binlog's end in a scrape of
 * Flink's Prometheus reporters. Before it, the same script creates a rustcdc catalog of the server and reads
 * the table through it, with no {@code CREATE TABLE}.
 *
 * <p>Each flavor runs on a server of the test's own, whatever {@code -Drustcdc.mysql.flavor} says;
 * {@code -Doracle-mysql.skip} leaves out Oracle MySQL, which needs root (see the README).
 */
@Tag("cluster")
@Timeout(600)
class MySqlSqlClientClusterITCase {
    private static final Pattern TASK_MANAGER_OUT = Pattern.compile("taskmanager-(\\d+)\\.out");
    private static final int ROWS = 2_000;

    @RegisterExtension
    static final FlinkClusterExtension CLUSTER = FlinkClusterExtension.forSqlClient();

    @Test
    void mariaDbThroughTheSqlClientInUpsertModeSurvivesATaskManagerKillExactly() throws Exception {
        MySqlServer server = MySqlServer.shared("mariadb");
        streamThroughATaskManagerKill(server, "rustcdc-mariadb", 5501);
    }

    @Test
    void oracleMySqlThroughTheSqlClientInUpsertModeSurvivesATaskManagerKillExactly() throws Exception {
        assumeFalse(Boolean.getBoolean("rustcdc.e2e.oracle-mysql.skip"), "-Doracle-mysql.skip is set");
        MySqlServer server = MySqlServer.shared("mysql");
        streamThroughATaskManagerKill(server, "rustcdc-mysql", 5502);
    }

    private static void streamThroughATaskManagerKill(MySqlServer server, String connector, int serverId)
            throws Exception {
        FlinkCluster cluster = CLUSTER.cluster();
        String sink = "mirror_" + connector.replace('-', '_');
        MySqlDatabase source = server.createDatabase("sql_client");
        OrderWriter.createOrders(source, ROWS);
        Path passwordFile = cluster.dir().resolve(connector + "-password");
        Files.writeString(passwordFile, source.cdcPassword());
        Path script = cluster.dir().resolve(connector + ".sql");
        Files.writeString(script, String.join("\n",
                // the catalog first: a bounded query over its table, with no CREATE TABLE
                "SET 'sql-client.execution.result-mode' = 'tableau';",
                "CREATE CATALOG my WITH (",
                "  'type' = '" + connector + "',",
                "  'hostname' = '" + source.host() + "', 'port' = '" + source.port() + "',",
                "  'username' = '" + source.cdcUser() + "', 'password.file' = '" + passwordFile + "',",
                "  'default-database' = '" + source.name() + "', 'table.include-list' = '" + source.name() + ".*'",
                ");",
                "SELECT id, status, amount FROM my.`" + source.name() + "`.orders /*+ OPTIONS('server-id' = '"
                        + (serverId + 100) + "', 'scan.startup.mode' = 'snapshot') */ WHERE id <= 3;",
                "SET 'execution.checkpointing.interval' = '1 s';",
                "SET 'parallelism.default' = '2';",
                "CREATE TABLE orders (",
                "  id BIGINT, status STRING, amount DECIMAL(12, 2),",
                "  PRIMARY KEY (id) NOT ENFORCED",
                ") WITH (",
                "  'connector' = '" + connector + "', 'changelog-mode' = 'upsert',",
                "  'hostname' = '" + source.host() + "', 'port' = '" + source.port() + "',",
                "  'username' = '" + source.cdcUser() + "', 'password.file' = '" + passwordFile + "',",
                "  'database-name' = '" + source.name() + "', 'table-name' = 'orders',",
                "  'server-id' = '" + serverId + "', 'scan.incremental.snapshot.chunk.size' = '500',",
                "  'binlog.check-interval' = '1 s'",
                ");",
                "CREATE TABLE " + sink + " (",
                "  id BIGINT, status STRING, amount DECIMAL(12, 2), PRIMARY KEY (id) NOT ENFORCED",
                ") WITH ('connector' = 'print', 'print-identifier' = '" + sink + "');",
                "INSERT INTO " + sink + " SELECT id, status, amount FROM orders;",
                ""));

        String output = cluster.sqlClient(script);
        assertThat(output).doesNotContain("[ERROR]").contains("Job ID:");
        assertThat(output.replaceAll(" +", " ")).contains("| +I | 1 | paid | 1.25 |", "| +I | 2 | shipped | 2.50 |",
                "| +I | 3 | new | 3.75 |");
        String job = output.replaceAll("(?s).*Job ID: ([0-9a-f]{32}).*", "$1");
        Pattern printed = Pattern.compile(Pattern.quote(sink) + "(?::\\d+)?> ([+-][IUD])\\[(\\d+), ([^,\\]]+), ([^\\]]+)]");
        try {
            killWhileStreamingAndCompare(cluster, source, job, printed, serverId);
            assertBinlogGaugesAreScraped(cluster, job, connector.substring("rustcdc-".length()));
        } catch (Throwable failure) {
            try {
                cluster.cancel(job); // so that its slots are free for the next test
            } catch (Throwable cancel) {
                failure.addSuppressed(cancel);
            }
            throw failure;
        }
        cluster.cancel(job);
    }

    private static void killWhileStreamingAndCompare(FlinkCluster cluster, MySqlDatabase source, String job,
            Pattern printed, long seed) throws Exception {
        try (OrderWriter writer = new OrderWriter(source, seed)) {
            cluster.awaitRunning(job);
            writer.awaitTransactions(200);
            // A print sink keeps what a failed attempt wrote: the kill comes once the snapshot is in a
            // checkpoint (see docs/datastream.md, delivery guarantees), and the stream has delivered a delete.
            awaitSnapshotRead(cluster, job);
            Poll.until("a streamed delete in the print sink's output", Duration.ofMinutes(2),
                    () -> kinds(printedLines(cluster, printed)).contains("-D"));
            cluster.awaitCheckpoints(job, 2);
            cluster.killTaskManager(); // while the job streams and the writer writes
            writer.awaitTransactions(200);
            cluster.startTaskManager();
            cluster.awaitRunning(job);
            writer.awaitTransactions(200);
        }
        Map<Long, String> expected = new HashMap<>();
        for (List<String> row : source.query("SELECT id, status, amount FROM orders")) {
            expected.put(Long.valueOf(row.get(0)), row.get(1) + "|" + row.get(2));
        }
        Map<Long, String> actual = new HashMap<>();
        try {
            Poll.until("the printed changelog, applied in order, to equal the " + expected.size() + " rows of "
                    + source.name(), Duration.ofMinutes(2), () -> {
                        actual.clear();
                        actual.putAll(applied(printedLines(cluster, printed)));
                        return actual.equals(expected);
                    });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; " + differences(actual, expected), e);
        }
        assertThat(kinds(printedLines(cluster, printed))).contains("+I", "+U", "-D");
    }

    /**
     * The binlog alerts of docs/operations.md are built from numeric gauges as Flink's Prometheus reporter
     * exports them: once the writer has stopped, the streaming subtask (on the replacement TaskManager) is at
     * the server's binlog end, every lag 0, and {@code numBytesIn} counted the events it read.
     */
    private static void assertBinlogGaugesAreScraped(FlinkCluster cluster, String job, String group) {
        String reader = "flink_taskmanager_job_task_operator_";
        String gauge = reader + group + "_";
        PrometheusScrape[] scraped = new PrometheusScrape[1];
        long start = System.nanoTime();
        try {
            Poll.until("the binlog gauges at the binlog's end in a Prometheus scrape", Duration.ofSeconds(60), () -> {
                PrometheusScrape s = PrometheusScrape.of(cluster, job);
                scraped[0] = s;
                return s.max(gauge + "binlogServerFileIndex") >= 0 && s.max(gauge + "binlogLagSeconds") == 0
                        && s.max(gauge + "binlogLagBytes") == 0 && s.max(gauge + "gtidsBehind") == 0
                        && s.max(gauge + "binlogFileIndex") == s.max(gauge + "binlogServerFileIndex")
                        && s.max(gauge + "binlogPosition") >= s.max(gauge + "binlogServerPosition")
                        && s.max(reader + "numBytesIn") > 0;
            });
        } catch (AssertionError e) {
            PrometheusScrape s = scraped[0];
            throw new AssertionError(e.getMessage() + "; scraped " + (s == null ? "nothing" : s.namesContaining(group)
                    .stream().map(n -> n + "=" + s.values(n)).toList()), e);
        }
        assertThat(scraped[0].values(reader + "numRecordsInErrors")).isNotEmpty().containsOnly(0.0);
        System.out.printf("Scraped %s's binlog gauges at the end in %d ms: numBytesIn %.0f%n", group,
                (System.nanoTime() - start) / 1_000_000, scraped[0].max(reader + "numBytesIn"));
    }

    /**
     * Waits until the source's enumerator has planned and read every snapshot chunk, as its gauges
     * ({@code docs/operations.md}) show in a Prometheus scrape of the JobManager.
     */
    private static void awaitSnapshotRead(FlinkCluster cluster, String job) throws InterruptedException {
        Pattern gauge = Pattern.compile("(?m)^\\w+_(snapshotTablesBeingPlanned|snapshotChunksInFlight|snapshotChunksRead)"
                + "\\{[^}]*job_id=\"" + job + "\"[^}]*\\} (\\S+)$");
        Map<String, Double> gauges = new HashMap<>();
        try {
            Poll.until("the snapshot's chunks to be read (gauges in the JobManager's scrape)", Duration.ofMinutes(2), () -> {
                gauges.clear();
                Matcher m = gauge.matcher(cluster.prometheusMetrics());
                while (m.find()) {
                    gauges.put(m.group(1), Double.valueOf(m.group(2)));
                }
                return gauges.size() == 3 && gauges.get("snapshotTablesBeingPlanned") == 0
                        && gauges.get("snapshotChunksInFlight") == 0 && gauges.get("snapshotChunksRead") >= ROWS / 500;
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; read " + gauges + " from "
                    + cluster.prometheusMetrics().lines().filter(l -> l.contains("snapshot")).toList(), e);
        }
    }

    /**
     * The print sink's lines of every TaskManager that ran the job, in the order the TaskManagers
     * started: a replacement restores the last checkpoint and prints again what followed it.
     */
    private static List<Matcher> printedLines(FlinkCluster cluster, Pattern printed) {
        List<Matcher> lines = new ArrayList<>();
        try (Stream<Path> files = Files.list(cluster.dir().resolve("log"))) {
            List<Path> outs = files.filter(f -> TASK_MANAGER_OUT.matcher(f.getFileName().toString()).matches())
                    .sorted(Comparator.comparingInt(f -> taskManagerNumber(f))).toList();
            for (Path out : outs) {
                for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                    Matcher m = printed.matcher(line);
                    if (m.find()) {
                        lines.add(m);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lines;
    }

    private static int taskManagerNumber(Path out) {
        Matcher m = TASK_MANAGER_OUT.matcher(out.getFileName().toString());
        m.matches();
        return Integer.parseInt(m.group(1));
    }

    private static Set<String> kinds(List<Matcher> lines) {
        return lines.stream().map(m -> m.group(1)).collect(Collectors.toCollection(TreeSet::new));
    }

    /** id to "status|amount", from the changelog applied in order. */
    private static Map<Long, String> applied(List<Matcher> lines) {
        Map<Long, String> rows = new HashMap<>();
        for (Matcher m : lines) {
            long id = Long.parseLong(m.group(2));
            switch (m.group(1)) {
                case "+I", "+U" -> rows.put(id, m.group(3) + "|" + m.group(4));
                default -> rows.remove(id);
            }
        }
        return rows;
    }

    private static String differences(Map<Long, String> actual, Map<Long, String> expected) {
        List<Long> missing = expected.keySet().stream().filter(k -> !actual.containsKey(k)).sorted().limit(5).toList();
        List<Long> unexpected = actual.keySet().stream().filter(k -> !expected.containsKey(k)).sorted().limit(5).toList();
        List<String> different = expected.keySet().stream().filter(k -> actual.containsKey(k)
                && !actual.get(k).equals(expected.get(k))).sorted().limit(5)
                .map(k -> k + ": " + actual.get(k) + " expected " + expected.get(k)).toList();
        return "missing " + missing + ", unexpected " + unexpected + ", different " + different;
    }
}
