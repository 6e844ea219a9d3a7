package io.rustcdc.flink.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.testing.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shaded SQL connector jar dropped into the lib/ folder of a session cluster, and a SQL script
 * run with Flink's SQL client ({@code sql-client.sh -f}): a continuous aggregate over a table that
 * a writer keeps changing ends equal to the same aggregate computed by PostgreSQL; and the metrics the
 * alerts of docs/operations.md are built from show in a scrape of Flink's Prometheus reporters. Before it,
 * the same script creates a rustcdc catalog and lists, describes and reads the table through it, with no
 * {@code CREATE TABLE}.
 */
@ExtendWith(PostgresExtension.class)
@Tag("cluster")
@Timeout(600)
class SqlClientClusterITCase {
    private static final Pattern PRINTED = Pattern.compile("totals> ([+-][IUD])\\[(\\w+), (\\d+), ([\\d.]+)]");

    @RegisterExtension
    static final FlinkClusterExtension CLUSTER = FlinkClusterExtension.forSqlClient();

    @Test
    void aScriptRunByTheSqlClientWithTheConnectorJarInLibStreamsAnExactAggregate(PostgresDatabase db) throws Exception {
        FlinkCluster cluster = CLUSTER.cluster();
        PostgresDatabase source = db.server().createDatabase("sql_client");
        OrderWriter.createOrders(source, 2_000);
        String slot = "e2e_" + source.name();
        source.execute("CREATE PUBLICATION e2e FOR TABLE orders",
                "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
        Path passwordFile = cluster.dir().resolve("postgres-password");
        Files.writeString(passwordFile, source.replicationPassword());
        Path script = cluster.dir().resolve("orders.sql");
        String catalogTable = "pg." + source.name() + ".`public.orders`";
        Files.writeString(script, String.join("\n",
                // first a catalog: the table listed, described and read (bounded by a hint) with no CREATE TABLE
                "SET 'sql-client.execution.result-mode' = 'tableau';",
                "CREATE CATALOG pg WITH (",
                "  'type' = 'rustcdc-postgres',",
                "  'hostname' = '" + source.host() + "', 'port' = '" + source.port() + "',",
                "  'username' = '" + source.replicationUser() + "', 'password.file' = '" + passwordFile + "',",
                "  'database-name' = '" + source.name() + "'",
                ");",
                "SHOW TABLES FROM pg." + source.name() + ";",
                "DESCRIBE " + catalogTable + ";",
                "SELECT * FROM " + catalogTable + " /*+ OPTIONS('scan.startup.mode' = 'snapshot') */ WHERE id <= 2;",
                "SET 'execution.checkpointing.interval' = '1 s';",
                "CREATE TABLE orders (",
                "  id BIGINT, status STRING, amount DECIMAL(12, 2),",
                "  PRIMARY KEY (id) NOT ENFORCED",
                ") WITH (",
                "  'connector' = 'rustcdc-postgres',",
                "  'hostname' = '" + source.host() + "', 'port' = '" + source.port() + "',",
                "  'username' = '" + source.replicationUser() + "', 'password.file' = '" + passwordFile + "',",
                "  'database-name' = '" + source.name() + "', 'table-name' = 'public.orders',",
                "  'slot.name' = '" + slot + "', 'publication.name' = 'e2e'",
                ");",
                "CREATE TABLE totals (",
                "  status STRING, orders BIGINT, amount DECIMAL(38, 2), PRIMARY KEY (status) NOT ENFORCED",
                ") WITH ('connector' = 'print', 'print-identifier' = 'totals');",
                "INSERT INTO totals SELECT status, COUNT(*), SUM(amount) FROM orders GROUP BY status;",
                ""));

        String output = cluster.sqlClient(script);
        assertThat(output).doesNotContain("[ERROR]").contains("Job ID:", "| public.orders |");
        assertThat(output.replaceAll(" +", " ")).contains("| id | BIGINT | FALSE | PRI(id) |",
                "| status | STRING | FALSE |", "| amount | DECIMAL(12, 2) | TRUE |", "| +I | 1 | paid | 1.25 |",
                "| +I | 2 | shipped | 2.50 |");
        String job = output.replaceAll("(?s).*Job ID: ([0-9a-f]{32}).*", "$1");
        try (OrderWriter writer = new OrderWriter(source, 4)) {
            cluster.awaitRunning(job);
            writer.awaitTransactions(300);
        }
        Map<String, String> expected = new TreeMap<>();
        for (String row : source.queryColumn(
                "SELECT status || '|' || count(*) || '|' || sum(amount) FROM orders GROUP BY status")) {
            expected.put(row.substring(0, row.indexOf('|')), row.substring(row.indexOf('|') + 1));
        }
        Poll.until("the printed aggregate to equal " + expected, Duration.ofMinutes(2),
                () -> printedTotals(cluster.lastTaskManagerOut()).equals(expected));
        assertAlertMetricsAreScraped(cluster, job);
        cluster.cancel(job);
    }

    /**
     * The alerts of docs/operations.md are built from numeric metrics as Flink's Prometheus reporter
     * exports them: the reader's (bytes read, errors, retries, fetch lag), the slot's, the enumerator's
     * and the job's restarts, read here from the running job; {@code pendingRecords} is not registered.
     */
    private static void assertAlertMetricsAreScraped(FlinkCluster cluster, String job) {
        String reader = "flink_taskmanager_job_task_operator_";
        String enumerator = "flink_jobmanager_job_operator_coordinator_enumerator_";
        PrometheusScrape[] scraped = new PrometheusScrape[1];
        long start = System.nanoTime();
        try {
            Poll.until("the alerts' metrics in a Prometheus scrape", Duration.ofSeconds(60), () -> {
                PrometheusScrape s = PrometheusScrape.of(cluster, job);
                scraped[0] = s;
                return s.max(reader + "numBytesIn") > 0 && s.max(reader + "postgres_slotWalStatusCode") == 0
                        && s.max(reader + "currentFetchEventTimeLag") >= 0
                        && !s.values(reader + "connectionRetries").isEmpty()
                        && s.max(enumerator + "snapshotChunksRead") > 0
                        && !s.values(enumerator + "connectionRetries").isEmpty()
                        && !s.values("flink_jobmanager_job_numRestarts").isEmpty();
            });
        } catch (AssertionError e) {
            PrometheusScrape s = scraped[0];
            throw new AssertionError(e.getMessage() + "; the job's metrics of those names: " + (s == null ? "none"
                    : List.of(s.namesContaining("numBytesIn"), s.namesContaining("slotWalStatusCode"),
                            s.namesContaining("FetchEventTimeLag"), s.namesContaining("connectionRetries"),
                            s.namesContaining("snapshotChunksRead"), s.namesContaining("numRestarts"))), e);
        }
        PrometheusScrape s = scraped[0];
        assertThat(s.values(reader + "numRecordsInErrors")).as("no record is skipped").isNotEmpty().containsOnly(0.0);
        assertThat(s.max(reader + "postgres_slotLagBytes")).isGreaterThanOrEqualTo(0);
        assertThat(s.values(reader + "postgres_slotSafeWalSizeBytes")).isNotEmpty();
        assertThat(s.namesContaining("pendingRecords")).isEmpty();
        System.out.printf("Scraped in %d ms: numBytesIn %.0f, slotLagBytes %.0f, currentFetchEventTimeLag %.0f ms%n",
                (System.nanoTime() - start) / 1_000_000, s.max(reader + "numBytesIn"),
                s.max(reader + "postgres_slotLagBytes"), s.max(reader + "currentFetchEventTimeLag"));
    }

    /** The aggregate's rows as the print sink's changelog leaves them: status to "count|sum". */
    private static Map<String, String> printedTotals(Path out) {
        Map<String, String> totals = new TreeMap<>();
        try {
            for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                Matcher m = PRINTED.matcher(line);
                if (!m.find()) {
                    continue;
                }
                switch (m.group(1)) {
                    case "+I", "+U" -> totals.put(m.group(2), m.group(3) + "|" + m.group(4));
                    default -> totals.remove(m.group(2));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return totals;
    }
}
