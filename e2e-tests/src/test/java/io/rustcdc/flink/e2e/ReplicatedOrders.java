package io.rustcdc.flink.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresServer;
import io.rustcdc.flink.testing.JsonChangelog;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.SqlDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The table {@code orders} of a source database (PostgreSQL, with a publication and a slot for it, or
 * MySQL/MariaDB), and the PostgreSQL database the job under test writes its changelog to (see {@code
 * ChangelogTableSink}): compares the rows the changelog materializes with the source's.
 */
final class ReplicatedOrders {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final SqlDatabase source;
    private final PostgresDatabase sink;
    private final List<String> sourceArgs;
    private JsonChangelog last;

    private ReplicatedOrders(SqlDatabase source, PostgresDatabase sink, List<String> sourceArgs) {
        this.source = source;
        this.sink = sink;
        this.sourceArgs = sourceArgs;
    }

    static ReplicatedOrders create(PostgresServer server, String name, int rows) throws SQLException {
        PostgresDatabase source = server.createDatabase(name);
        OrderWriter.createOrders(source, rows);
        String slot = "e2e_" + source.name();
        source.execute("CREATE PUBLICATION e2e FOR TABLE orders",
                "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
        return new ReplicatedOrders(source, sink(server, name), List.of(
                "--hostname", source.host(), "--port", String.valueOf(source.port()), "--database", source.name(),
                "--username", source.replicationUser(), "--password", source.replicationPassword(),
                "--slot", slot, "--publication", "e2e", "--tables", "public.orders"));
    }

    /** {@code orders} in a new database of {@code server}, read with server id {@code serverId}. */
    static ReplicatedOrders createMySql(MySqlServer server, long serverId, PostgresServer sinkServer, String name,
            int rows) throws SQLException {
        MySqlDatabase source = server.createDatabase(name);
        OrderWriter.createOrders(source, rows);
        return new ReplicatedOrders(source, sink(sinkServer, name), List.of(
                "--connector", server.isMariaDb() ? "mariadb" : "mysql",
                "--hostname", source.host(), "--port", String.valueOf(source.port()),
                "--username", source.cdcUser(), "--password", source.cdcPassword(),
                "--server-id", String.valueOf(serverId), "--tables", source.name() + ".orders"));
    }

    private static PostgresDatabase sink(PostgresServer server, String name) throws SQLException {
        PostgresDatabase sink = server.createDatabase(name + "_sink");
        try (Connection c = sink.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE changelog (seq bigserial PRIMARY KEY, event text NOT NULL)");
            s.execute("CREATE TABLE changelog_batches (id text PRIMARY KEY)");
        }
        return sink;
    }

    SqlDatabase source() {
        return source;
    }

    /** The arguments of {@code ChangelogToTableJob} for this source and sink. */
    String[] jobArgs() {
        List<String> args = new ArrayList<>(sourceArgs);
        args.addAll(List.of("--chunk-size", "500", "--parallelism", "2", "--checkpoint-ms", "500",
                "--sink-url", sink.jdbcUrl() + "?sslmode=disable", "--sink-username", sink.replicationUser(),
                "--sink-password", sink.replicationPassword()));
        return args.toArray(new String[0]);
    }

    /**
     * Waits until the changelog in the sink, applied in order, gives exactly the source's rows;
     * fails at once on an impossible change (a row read or inserted twice, an update or delete of a
     * row never emitted), and after two minutes with the rows that differ.
     */
    void awaitSinkEqualsSource() throws Exception {
        awaitSinkEqualsSource(false);
    }

    /**
     * {@link #awaitSinkEqualsSource()}, with {@code readAgain}: the table was snapshotted again on request, so
     * its rows, and changes a chunk of that snapshot already showed, may come twice (docs/operations.md, "What
     * a re-snapshot delivers"); an update or delete of a row never emitted is still a violation.
     */
    void awaitSinkEqualsSource(boolean readAgain) throws Exception {
        Map<String, String> expected = sourceRows();
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (true) {
            JsonChangelog changelog = sinkChangelog();
            List<String> violations = changelog.violations().stream()
                    .filter(v -> !readAgain || !v.matches("(read|insert) of a row already emitted: orders .*")).toList();
            if (!violations.isEmpty()) {
                throw new AssertionError("The changelog is not exact: " + violations.subList(0,
                        Math.min(10, violations.size())) + "; the sink's events of the first: " + eventsOf(violations.get(0)));
            }
            Map<String, String> actual = materialized(changelog);
            if (actual.equals(expected)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("The sink never matched the source; ops " + changelog.ops() + "; "
                        + differences(actual, expected));
            }
            Thread.sleep(500);
        }
    }

    /**
     * Waits until the sink holds changes of every kind from the stream (an insert, an update and a
     * delete), for a test whose writer must outlast the snapshot: on a slow machine the snapshot alone
     * may otherwise read every write.
     */
    void awaitStreamedChanges() throws Exception {
        Poll.until("the stream's inserts, updates and deletes in the sink", Duration.ofMinutes(3),
                () -> sinkChangelog().ops().keySet().containsAll(List.of("insert", "update", "delete")));
    }

    /** How many events of each op the sink holds now. */
    Map<String, Integer> opsNow() throws SQLException {
        return sinkChangelog().ops();
    }

    /** The violations of an exact changelog the sink holds now (see {@code JsonChangelog}). */
    List<String> violationsNow() throws SQLException {
        return sinkChangelog().violations();
    }

    /** How many events of each op the sink holds, as of the last comparison. */
    Map<String, Integer> ops() {
        return last.ops();
    }

    private JsonChangelog sinkChangelog() throws SQLException {
        JsonChangelog changelog = new JsonChangelog(Map.of("orders", List.of("id")));
        try (Connection c = sink.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT event FROM changelog ORDER BY seq")) {
            while (rs.next()) {
                changelog.apply(rs.getString(1));
            }
        }
        last = changelog;
        return changelog;
    }

    /** The sink's events, in order, of the row a violation names (its key's text: the last word, {@code "id"|}). */
    private String eventsOf(String violation) throws SQLException {
        String key = violation.substring(violation.lastIndexOf(' ') + 1);
        String id = key.substring(0, key.length() - 1);
        String digits = id.replace("\"", "");
        StringBuilder sb = new StringBuilder();
        try (Connection c = sink.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT seq, event FROM changelog ORDER BY seq")) {
            while (rs.next()) {
                String event = rs.getString(2);
                if (event.contains(digits) && sb.length() < 20_000) {
                    sb.append("\n  ").append(rs.getLong(1)).append(' ').append(event);
                }
            }
        }
        return sb.toString();
    }

    /** id to "status|amount", from the rows the changelog materialized. */
    private static Map<String, String> materialized(JsonChangelog changelog) throws Exception {
        Map<String, String> rows = new HashMap<>();
        for (String json : changelog.rows("orders").values()) {
            JsonNode row = MAPPER.readTree(json);
            rows.put(row.get("id").asText(), row.get("status").asText() + "|" + row.get("amount").asText());
        }
        return rows;
    }

    /** id to "status|amount", from the source table. */
    private Map<String, String> sourceRows() throws SQLException {
        Map<String, String> rows = new HashMap<>();
        try (Connection c = source.admin();
                Statement s = c.createStatement();
                // the amount's text as the server writes it: numeric(12,2) and DECIMAL(12,2) with their two digits
                ResultSet rs = s.executeQuery("SELECT id, status, amount FROM orders")) {
            while (rs.next()) {
                rows.put(rs.getString(1), rs.getString(2) + "|" + rs.getString(3));
            }
        }
        return rows;
    }

    private static String differences(Map<String, String> actual, Map<String, String> expected) {
        List<String> missing = expected.keySet().stream().filter(k -> !actual.containsKey(k)).sorted().toList();
        List<String> unexpected = actual.keySet().stream().filter(k -> !expected.containsKey(k)).sorted().toList();
        List<String> different = expected.keySet().stream().filter(k -> actual.containsKey(k)
                && !actual.get(k).equals(expected.get(k))).map(k -> k + ": " + actual.get(k) + " expected "
                + expected.get(k)).sorted().toList();
        return missing.size() + " ids missing " + first(missing) + ", " + unexpected.size() + " unexpected "
                + first(unexpected) + ", " + different.size() + " different " + first(different);
    }

    private static List<String> first(List<String> list) {
        return list.subList(0, Math.min(5, list.size()));
    }
}
