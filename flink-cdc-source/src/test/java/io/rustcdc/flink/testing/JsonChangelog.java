package io.rustcdc.flink.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Materializes a changelog of native JSON events by table and key, and records every violation of
 * an exact handoff: a row inserted (or read) twice, or an update or delete of a row never emitted.
 * Rows are kept as their JSON text, so values compare exactly as rendered.
 */
public final class JsonChangelog {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Map<String, List<String>> keyColumns;
    private final Map<String, Map<String, String>> tables = new TreeMap<>();
    private final List<String> violations = new ArrayList<>();
    private final Map<String, Integer> ops = new TreeMap<>();

    /** @param keyColumns the key columns of each table, by table name */
    public JsonChangelog(Map<String, List<String>> keyColumns) {
        this.keyColumns = keyColumns;
    }

    /** Applies records from {@code records} until {@code done} holds; fails after {@code timeout}. */
    public void drainUntil(BlockingQueue<String> records, BooleanSupplier done, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out; ops " + ops() + ", violations " + violations());
            }
            String r = records.poll(100, TimeUnit.MILLISECONDS);
            if (r != null) {
                apply(r);
            }
        }
    }

    /** One event of the source's native JSON, parsed. */
    public static JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void apply(String json) {
        JsonNode e = parse(json);
        String table = e.get("table").asText();
        String op = e.get("op").asText();
        ops.merge(op, 1, Integer::sum);
        Map<String, String> rows = tables.computeIfAbsent(table, t -> new HashMap<>());
        JsonNode before = e.get("before");
        JsonNode after = e.get("after");
        switch (op) {
            case "read":
            case "insert":
                put(rows, table, after, op);
                break;
            case "update": {
                String oldKey = before != null && hasKey(table, before) ? key(table, before) : key(table, after);
                if (rows.remove(oldKey) == null) {
                    violations.add("update of a row never emitted: " + table + " " + oldKey);
                }
                rows.put(key(table, after), values(after));
                break;
            }
            case "delete":
                if (rows.remove(key(table, before)) == null) {
                    violations.add("delete of a row never emitted: " + table + " " + key(table, before));
                }
                break;
            case "truncate":
                rows.clear();
                break;
            default:
                break;
        }
    }

    private void put(Map<String, String> rows, String table, JsonNode after, String op) {
        if (rows.put(key(table, after), values(after)) != null) {
            violations.add(op + " of a row already emitted: " + table + " " + key(table, after));
        }
    }

    private boolean hasKey(String table, JsonNode row) {
        return keyColumns.get(table).stream().allMatch(row::has);
    }

    private String key(String table, JsonNode row) {
        StringBuilder sb = new StringBuilder();
        for (String c : keyColumns.get(table)) {
            sb.append(row.get(c).toString()).append('|');
        }
        return sb.toString();
    }

    private static String values(JsonNode row) {
        return row.toString();
    }

    /** The materialized rows of {@code table}: key text to the row's JSON. */
    public Map<String, String> rows(String table) {
        return tables.getOrDefault(table, Map.of());
    }

    public List<String> violations() {
        return violations;
    }

    /**
     * How the materialized rows of {@code table} differ from {@code expected}: counts of missing,
     * unexpected and different rows, with a few keys of each, for a failure message.
     */
    public String differences(String table, Map<String, String> expected) {
        Map<String, String> actual = rows(table);
        List<String> missing = new ArrayList<>();
        List<String> unexpected = new ArrayList<>();
        List<String> different = new ArrayList<>();
        expected.forEach((k, v) -> {
            String a = actual.get(k);
            if (a == null) {
                missing.add(k);
            } else if (!a.equals(v)) {
                different.add(k + " " + a + " expected " + v);
            }
        });
        actual.keySet().stream().filter(k -> !expected.containsKey(k)).forEach(unexpected::add);
        return table + ": " + missing.size() + " missing " + first(missing) + ", " + unexpected.size() + " unexpected "
                + first(unexpected) + ", " + different.size() + " different " + first(different);
    }

    private static List<String> first(List<String> keys) {
        return keys.subList(0, Math.min(5, keys.size()));
    }

    /** How many events of each op were applied. */
    public Map<String, Integer> ops() {
        return ops;
    }
}
