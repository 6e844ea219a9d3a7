package io.rustcdc.flink.testing.consistency;

import com.fasterxml.jackson.databind.JsonNode;
import io.rustcdc.flink.testing.JsonChangelog;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The oracle: replays a changelog of native JSON events by table and key, and compares the result
 * with the tables' content read from the database. Strict for a sink that receives each event
 * once: no row read or inserted twice, no change of a row never emitted, every old row (the
 * before image) equal to the row last emitted for that key, and versions only going up. An upsert
 * replay (for a sink that may receive a failed attempt's events again) only sets and removes rows
 * by key, as an idempotent sink does, and is judged by its final content alone.
 */
final class Replay {
    private static final int KEPT_VIOLATIONS = 20;

    private final boolean strict;
    private final Map<String, Map<String, Map<String, String>>> tables = new TreeMap<>();
    private final List<String> violations = new ArrayList<>();
    private int violationCount;
    private final Map<String, Integer> ops = new TreeMap<>();
    private int changesSinceRead;

    Replay(boolean strict) {
        this.strict = strict;
    }

    void apply(String json) {
        JsonNode e = JsonChangelog.parse(json);
        String op = e.get("op").asText();
        ops.merge(op, 1, Integer::sum);
        changesSinceRead = op.equals("read") ? 0 : changesSinceRead + 1;
        SuiteTable table = table(e.get("table").asText());
        if (table == null) {
            return;
        }
        Map<String, Map<String, String>> rows = tables.computeIfAbsent(table.name, t -> new HashMap<>());
        Map<String, String> before = row(e.get("before"));
        Map<String, String> after = row(e.get("after"));
        switch (op) {
            case "read":
            case "insert": {
                Map<String, String> old = rows.put(key(table, after), after);
                check(old == null, op + " of a row already emitted", table, after, old);
                break;
            }
            case "update": {
                String oldKey = key(table, before != null && hasKey(table, before) ? before : after);
                Map<String, String> old = rows.remove(oldKey);
                check(old != null, "update of a row never emitted", table, before == null ? after : before, null);
                checkBefore(table, before, old);
                if (old != null && before != null && before.get("ver") != null) {
                    check(Long.parseLong(after.get("ver")) > Long.parseLong(before.get("ver")),
                            "update to an older or equal version", table, after, before);
                }
                Map<String, String> displaced = rows.put(key(table, after), after);
                check(displaced == null, "update onto a key already emitted", table, after, displaced);
                break;
            }
            case "delete": {
                Map<String, String> old = rows.remove(key(table, before));
                check(old != null, "delete of a row never emitted", table, before, null);
                checkBefore(table, before, old);
                break;
            }
            case "truncate":
                rows.clear();
                break;
            default:
                break;
        }
    }

    private void checkBefore(SuiteTable table, Map<String, String> before, Map<String, String> last) {
        if (last == null || before == null) {
            return;
        }
        for (Map.Entry<String, String> c : before.entrySet()) {
            if (!java.util.Objects.equals(c.getValue(), last.get(c.getKey()))) {
                check(false, "old row differs from the row last emitted (a change lost, or one emitted twice)", table,
                        before, last);
                return;
            }
        }
    }

    private void check(boolean holds, String what, SuiteTable table, Map<String, String> row,
            Map<String, String> other) {
        if (holds || !strict) {
            return;
        }
        violationCount++;
        if (violations.size() < KEPT_VIOLATIONS) {
            violations.add(what + ": " + table.name + " " + row + (other == null ? "" : " vs " + other));
        }
    }

    /** Whether the replayed rows equal {@code expected}'s, table by table. */
    boolean reached(Map<String, Map<String, Map<String, String>>> expected) {
        for (Map.Entry<String, Map<String, Map<String, String>>> t : expected.entrySet()) {
            if (!tables.getOrDefault(t.getKey(), Map.of()).equals(t.getValue())) {
                return false;
            }
        }
        return true;
    }

    /** How the replayed rows differ from {@code expected}: counts, and a few keys of each kind. */
    String differences(Map<String, Map<String, Map<String, String>>> expected) {
        StringBuilder sb = new StringBuilder();
        expected.forEach((table, rows) -> {
            Map<String, Map<String, String>> actual = tables.getOrDefault(table, Map.of());
            List<String> missing = new ArrayList<>();
            List<String> unexpected = new ArrayList<>();
            List<String> different = new ArrayList<>();
            rows.forEach((k, v) -> {
                Map<String, String> a = actual.get(k);
                if (a == null) {
                    missing.add(k);
                } else if (!a.equals(v)) {
                    different.add(k + " " + a + " expected " + v);
                }
            });
            actual.keySet().stream().filter(k -> !rows.containsKey(k)).forEach(unexpected::add);
            sb.append("\n  ").append(table).append(": ").append(missing.size()).append(" missing ").append(first(missing))
                    .append(", ").append(unexpected.size()).append(" still there though gone ").append(first(unexpected))
                    .append(", ").append(different.size()).append(" with other values ").append(first(different));
        });
        return sb.toString();
    }

    private static List<String> first(List<String> keys) {
        return keys.subList(0, Math.min(5, keys.size()));
    }

    int violationCount() {
        return violationCount;
    }

    List<String> violations() {
        return violations;
    }

    Map<String, Integer> ops() {
        return ops;
    }

    /** How many stream events (not snapshot reads) came since the last snapshot read, or since the start. */
    int changesSinceRead() {
        return changesSinceRead;
    }

    /** Every suite table's rows now, as the replay keys them. */
    static Map<String, Map<String, Map<String, String>>> read(Connection c) throws SQLException {
        Map<String, Map<String, Map<String, String>>> result = new TreeMap<>();
        for (SuiteTable t : SuiteTable.values()) {
            Map<String, Map<String, String>> rows = new HashMap<>();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT " + t.columns() + " FROM " + t.name)) {
                ResultSetMetaData meta = rs.getMetaData();
                while (rs.next()) {
                    Map<String, String> row = new LinkedHashMap<>();
                    for (int i = 1; i <= meta.getColumnCount(); i++) {
                        row.put(meta.getColumnLabel(i).toLowerCase(java.util.Locale.ROOT), rs.getString(i));
                    }
                    rows.put(key(t, row), row);
                }
            }
            result.put(t.name, rows);
        }
        return result;
    }

    private static SuiteTable table(String name) {
        for (SuiteTable t : SuiteTable.values()) {
            if (t.name.equals(name)) {
                return t;
            }
        }
        return null;
    }

    private static Map<String, String> row(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        Map<String, String> row = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            row.put(f.getKey(), f.getValue().isNull() ? null : f.getValue().asText());
        }
        return row;
    }

    private static boolean hasKey(SuiteTable table, Map<String, String> row) {
        return table.keyColumns.stream().allMatch(row::containsKey);
    }

    private static String key(SuiteTable table, Map<String, String> row) {
        StringBuilder sb = new StringBuilder();
        for (String c : table.keyColumns) {
            sb.append(row.get(c)).append('|');
        }
        return sb.toString();
    }
}
