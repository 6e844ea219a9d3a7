package io.rustcdc.flink.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The oracle of one table name whose table is replaced while it is read (renamed away or dropped,
 * and created again; MariaDB's {@code CREATE OR REPLACE TABLE}): the changelog of the name as a run
 * of generations, one per table, each judged by its own {@link ShapedChangelog}.
 *
 * <p>The test announces each replacement with {@link #expectReplacement} before the stream can show
 * it: the old table's rows at the moment of the DDL, the classes of the events that must end the old
 * table and start the new one, and the new table's columns. Keys tell the tables apart: generation
 * {@code g} uses keys from {@code g * KEYS_PER_GENERATION}. Then:
 *
 * <ul>
 *   <li>the table-level events arrive in order, of the classes announced, and no other schema change;
 *   <li>when the first of them arrives, the old table's changelog is exact: every key's last event
 *       equals the old table's row at the DDL (all old rows came before it);
 *   <li>no row of the old table after it, no row of the new table before the last of them (a
 *       {@code table_created} after a {@code table_dropped}), and that event's shape has the new
 *       table's columns;
 *   <li>each generation's changelog is exact by itself ({@link ShapedChangelog}'s checks), the last
 *       one against the table at the end ({@link #reached}).
 * </ul>
 *
 * Not thread-safe: one thread announces and applies.
 */
public final class TableGenerations {
    /** Keys of generation {@code g} are {@code g * KEYS_PER_GENERATION} and up. */
    public static final long KEYS_PER_GENERATION = 1_000_000;
    private static final int KEPT_VIOLATIONS = 20;

    private record Replacement(Map<String, Map<String, String>> oldRows, List<String> classes, List<String> columns) {}

    private final String table;
    private final List<Replacement> replacements = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private final List<String> seen = new ArrayList<>();
    private final Map<String, Integer> rowOps = new TreeMap<>();
    private int violationCount;
    private ShapedChangelog current;
    private int generation;
    /** The index of the replacement whose events come next, and of its next event. */
    private int replacement;
    private int step;
    private int events;

    public TableGenerations(String table) {
        this.table = table;
        this.current = new ShapedChangelog(table, "id");
    }

    /**
     * The next replacement: {@code oldRows} (key text to lower-case column to value text) as the old
     * table held them at the DDL, the {@code classes} of the schema change events that end it and
     * start the new table, in order, and the new table's {@code columns}.
     */
    public void expectReplacement(Map<String, Map<String, String>> oldRows, List<String> classes, List<String> columns) {
        replacements.add(new Replacement(oldRows, List.copyOf(classes), List.copyOf(columns)));
    }

    public void apply(String json) {
        JsonNode e = JsonChangelog.parse(json);
        String op = e.get("op").asText();
        String name = e.path("table").asText();
        if (op.equals("schema_change") && name.equals(table + "__ddl_events")) {
            events++;
            schemaChange(e);
        } else if (name.equals(table)) {
            events++;
            rowOps.merge(op, 1, Integer::sum);
            row(e, json);
        }
    }

    private void row(JsonNode e, String json) {
        JsonNode row = e.get("after") != null && !e.get("after").isNull() ? e.get("after") : e.get("before");
        long key = row.get("id").asLong();
        long of = key / KEYS_PER_GENERATION;
        if (step > 0) {
            violation("a row of generation " + of + " between the events of replacement " + (replacement + 1), e);
        } else if (of < generation) {
            violation("a row of the old table (generation " + of + ") after the event that ended it", e);
        } else if (of > generation) {
            violation("a row of a new table (generation " + of + ") before the event that started it", e);
        } else {
            current.apply(json);
        }
    }

    private void schemaChange(JsonNode e) {
        List<String> classes = new ArrayList<>();
        e.path("schema_changes").forEach(c -> classes.add(c.path("class").asText()));
        seen.add(String.join("+", classes));
        if (replacement >= replacements.size()) {
            violation("a schema change " + classes + " with no replacement announced", e);
            return;
        }
        Replacement r = replacements.get(replacement);
        if (!classes.equals(List.of(r.classes.get(step)))) {
            violation("schema change " + classes + " where " + r.classes.get(step) + " was expected (replacement "
                    + (replacement + 1) + ", expected " + r.classes + ")", e);
        }
        if (step == 0) {
            String differences = current.differences(r.oldRows);
            if (!differences.isEmpty()) {
                violation("the old table's changelog (generation " + generation + ") is not its rows at the DDL when "
                        + "the event that ends it arrives: " + differences, e);
            }
            endGeneration();
        }
        if (step == r.classes.size() - 1) {
            List<String> columns = new ArrayList<>();
            e.path("shape").path("columns").forEach(c -> columns.add(c.get("name").asText()));
            if (!columns.equals(r.columns)) {
                violation("the event that starts generation " + (generation + 1) + " has the columns " + columns
                        + ", not the new table's " + r.columns, e);
            }
            generation++;
            current = new ShapedChangelog(table, "id");
            replacement++;
            step = 0;
        } else {
            step++;
        }
    }

    private void endGeneration() {
        for (String v : current.violations()) {
            keep("generation " + generation + ": " + v);
        }
        violationCount += current.violationCount();
    }

    private void violation(String what, JsonNode event) {
        violationCount++;
        keep("event " + events + ": " + what + ": " + event);
    }

    private void keep(String violation) {
        if (violations.size() < KEPT_VIOLATIONS) {
            violations.add(violation);
        }
    }

    /** Whether every replacement announced was seen and the last table's changelog is {@code expected}. */
    public boolean reached(Map<String, Map<String, String>> expected) {
        return differences(expected).isEmpty();
    }

    /** Why {@link #reached} is false; empty when it is true. */
    public String differences(Map<String, Map<String, String>> expected) {
        if (replacement < replacements.size() || step > 0) {
            return "replacement " + (replacement + 1) + " of " + replacements.size() + " not seen whole (schema changes "
                    + "seen: " + seen + ")";
        }
        return current.differences(expected);
    }

    /** Violations so far, the current generation's included. */
    public int violationCount() {
        return violationCount + current.violationCount();
    }

    /** The first violations, with their events (the current generation's last). */
    public List<String> violations() {
        List<String> all = new ArrayList<>(violations);
        current.violations().forEach(v -> all.add("generation " + generation + ": " + v));
        return all;
    }

    /** The classes of the schema change events seen, in order ({@code +} joins those of one event). */
    public List<String> schemaChanges() {
        return seen;
    }

    /** How many row events of each op (read, insert, update, delete) the table's name had. */
    public Map<String, Integer> rowOps() {
        return rowOps;
    }

    public int generation() {
        return generation;
    }
}
