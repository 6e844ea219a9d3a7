package io.rustcdc.flink.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rustcdc.flink.source.CdcSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The two tables the handoff and failover tests write to while a source reads them, {@code t1 (id,
 * v, n)} keyed by id and {@code t2 (a, b, v)} keyed by (a, b), and their rows as a {@link
 * JsonChangelog} holds them, read from the database.
 */
public final class TwoTables {
    public static final Map<String, List<String>> KEYS = Map.of("t1", List.of("id"), "t2", List.of("a", "b"));

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private TwoTables() {}

    /**
     * Runs {@code source} at parallelism 4 while {@code writers} change both tables, until its
     * changelog holds the tables' rows as they are after the writers stopped; returns the changelog,
     * to be checked for violations.
     */
    public static JsonChangelog underConcurrentWrites(CdcSource<String, ?, ?> source, Callable<ConcurrentWriters> writers,
            Callable<Connection> database) throws Exception {
        JsonChangelog changelog = new JsonChangelog(KEYS);
        try (SourceJob job = new SourceJob(source, 4);
                ConcurrentWriters running = writers.call()) {
            running.awaitEnd();
            if (running.transactions() <= 100) {
                throw new AssertionError("The writers committed only " + running.transactions() + " transactions");
            }
            Map<String, Map<String, String>> expected;
            try (Connection c = database.call()) {
                expected = rows(c);
            }
            job.applyUntil(changelog, () -> reached(changelog, expected), Duration.ofSeconds(120));
        }
        return changelog;
    }

    /** Both tables' rows now, by table. */
    public static Map<String, Map<String, String>> rows(Connection c) throws SQLException {
        return Map.of("t1", t1(c), "t2", t2(c));
    }

    /** Whether {@code changelog} holds exactly {@code expected}'s rows. */
    public static boolean reached(JsonChangelog changelog, Map<String, Map<String, String>> expected) {
        return changelog.rows("t1").equals(expected.get("t1")) && changelog.rows("t2").equals(expected.get("t2"));
    }

    /** t1's rows, keyed as {@link JsonChangelog#rows} keys them. */
    public static Map<String, String> t1(Connection c) throws SQLException {
        Map<String, String> rows = new HashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, v, n FROM t1")) {
            while (rs.next()) {
                ObjectNode row = MAPPER.createObjectNode().put("id", rs.getLong(1)).put("v", rs.getString(2));
                row.set("n", rs.getObject(3) == null ? MAPPER.nullNode() : MAPPER.getNodeFactory().numberNode(rs.getLong(3)));
                rows.put(rs.getLong(1) + "|", row.toString());
            }
        }
        return rows;
    }

    /** t2's rows, keyed as {@link JsonChangelog#rows} keys them. */
    public static Map<String, String> t2(Connection c) throws SQLException {
        Map<String, String> rows = new HashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT a, b, v FROM t2")) {
            while (rs.next()) {
                ObjectNode row = MAPPER.createObjectNode().put("a", rs.getLong(1)).put("b", rs.getLong(2))
                        .put("v", rs.getString(3));
                rows.put(rs.getLong(1) + "|" + rs.getLong(2) + "|", row.toString());
            }
        }
        return rows;
    }
}
