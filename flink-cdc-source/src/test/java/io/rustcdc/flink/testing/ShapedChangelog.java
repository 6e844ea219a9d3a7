package io.rustcdc.flink.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.annotation.Nullable;

/**
 * The oracle of one table keyed by one column whose columns change while it is read: replays a
 * changelog of native JSON events, schema changes included, and records every violation.
 *
 * <ul>
 *   <li>An exact handoff: no row read or inserted twice, no update or delete of a row never emitted.
 *   <li>Each row's fields are its shape's columns, and each stream event's row carries the shape of
 *       the table's last schema change event (or, before the first, the shape the stream's rows had):
 *       a schema change arrives in order with the rows around it. A stream row may have no shape (the
 *       source did not know it, see docs/native-json.md); after a schema change its fields must still
 *       be that change's columns. A schema change without a shape (MySQL: an {@code unknown} change,
 *       whose shape after it the source cannot know) must be {@code unknown} or {@code unchanged}; the
 *       first stream row after it tells its columns, which every row after it must have.
 *   <li>Each schema change event's classified changes, applied by name to the shape before it, give
 *       its shape (unless one is {@code unknown}); and applied to the rows held (a sink following the
 *       changes and the event's shape, else the first row's columns), they keep every value exact: a
 *       dropped column leaves every row, a renamed one moves with its value, an added one is of unknown
 *       value in the rows emitted before it (the table's default, which no event carried) until their
 *       next change.
 * </ul>
 *
 * Values compare as text ({@code 5} and {@code "5"} alike, as a widened {@code int} renders as a
 * {@code bigint} string). Not thread-safe.
 */
public final class ShapedChangelog {
    /** The value of a column added after the row's last event: not known from the changelog. */
    public static final Object UNKNOWN = new Object() {
        @Override
        public String toString() {
            return "<unknown>";
        }
    };
    private static final int KEPT_VIOLATIONS = 20;

    private final String table;
    private final String key;
    private final Map<String, Map<String, Object>> rows = new HashMap<>();
    private final List<String> violations = new ArrayList<>();
    private int violationCount;
    private final Map<String, Integer> ops = new TreeMap<>();
    private final Map<String, Integer> classes = new TreeMap<>();
    private final List<String> classified = new ArrayList<>();
    /** The column names of the last schema change event's shape, else of the first event's (see {@link #shape()}). */
    @Nullable private List<String> shape;
    /** The shape id stream rows must carry: the last schema change event's, else the first stream row's. */
    private String streamShape;
    private boolean schemaChanged;
    private boolean lastChangeUnknown;
    private int events;

    /** @param table the table's name (as the JSON's {@code table}); @param key its key column */
    public ShapedChangelog(String table, String key) {
        this.table = table;
        this.key = key;
    }

    public void apply(String json) {
        JsonNode e = JsonChangelog.parse(json);
        String op = e.get("op").asText();
        // a schema change is published under the name <table>__ddl_events (JsonRenderer)
        if (!e.path("table").asText().equals(op.equals("schema_change") ? table + "__ddl_events" : table)) {
            return;
        }
        events++;
        ops.merge(op, 1, Integer::sum);
        JsonNode shapeNode = e.get("shape");
        JsonNode after = e.get("after");
        JsonNode before = e.get("before");
        if (shapeNode == null) {
            // a shape the source does not know (MySQL: rows whose table map the catalogue no longer fits): their
            // columns must still be those of the last schema change, once the stream has shown one
            if (op.equals("schema_change")) {
                schemaChange(e, null);
                streamShape = null;
                schemaChanged = true;
                return;
            } else if (op.equals("read")) {
                violation("a read event without a shape", e);
            } else if (schemaChanged && after != null && shape == null) {
                learn(new ArrayList<>(fields(after)));
            } else if (schemaChanged && after != null && !fields(after).equals(new TreeSet<>(shape))) {
                violation("stream row of columns " + fields(after) + " after a schema change to " + shape, e);
            }
        } else {
            List<String> columns = new ArrayList<>();
            shapeNode.get("columns").forEach(c -> columns.add(c.get("name").asText()));
            String shapeId = shapeNode.get("id").asText();
            if (shape == null) {
                learn(columns);
            }
            if (op.equals("schema_change")) {
                schemaChange(e, columns);
                streamShape = shapeId;
                schemaChanged = true;
                return;
            }
            if (after != null && !after.isNull() && !fields(after).equals(new TreeSet<>(columns))) {
                violation("row's columns " + fields(after) + " are not its shape's " + columns, e);
            }
            if (!op.equals("read")) {
                if (streamShape == null) {
                    streamShape = shapeId;
                } else if (!streamShape.equals(shapeId)) {
                    violation("stream row of shape " + columns + " (" + shapeId + ") after a schema change or rows of "
                            + "shape " + streamShape, e);
                }
            }
        }
        switch (op) {
            case "read":
            case "insert":
                if (rows.put(after.get(key).asText(), values(after)) != null) {
                    violation(op + " of a row already emitted", e);
                }
                break;
            case "update": {
                String oldKey = (before != null && before.has(key) ? before : after).get(key).asText();
                if (rows.remove(oldKey) == null) {
                    violation("update of a row never emitted", e);
                }
                if (rows.put(after.get(key).asText(), values(after)) != null) {
                    violation("update onto a key already emitted", e);
                }
                break;
            }
            case "delete":
                if (rows.remove(before.get(key).asText()) == null) {
                    violation("delete of a row never emitted", e);
                }
                break;
            default:
                violation("unexpected event", e);
        }
    }

    /**
     * A schema change to {@code columns}; null when the event has no shape (then its changes must be
     * {@code unknown} or {@code unchanged}, and the next stream row tells the columns).
     */
    private void schemaChange(JsonNode e, @Nullable List<String> columns) {
        JsonNode changes = e.get("schema_changes");
        if (changes == null || changes.isEmpty()) {
            violation("schema change without classified changes", e);
            shape = columns;
            return;
        }
        List<String> names = shape == null ? new ArrayList<>() : new ArrayList<>(shape);
        lastChangeUnknown = false;
        for (JsonNode c : changes) {
            String kind = c.get("class").asText();
            classes.merge(kind, 1, Integer::sum);
            List<String> before = names(c.get("before"));
            List<String> after = names(c.get("after"));
            classified.add(kind + " " + before + " -> " + after);
            switch (kind) {
                case "column_added":
                    names.add(Math.min(names.size(), c.path("position").asInt(names.size())), after.get(0));
                    rows.values().forEach(r -> r.putIfAbsent(after.get(0), UNKNOWN));
                    break;
                case "column_removed":
                    names.remove(before.get(0));
                    rows.values().forEach(r -> r.remove(before.get(0)));
                    break;
                case "column_renamed":
                    names.set(names.indexOf(before.get(0)), after.get(0));
                    rows.values().forEach(r -> {
                        if (r.containsKey(before.get(0))) {
                            r.put(after.get(0), r.remove(before.get(0)));
                        }
                    });
                    break;
                case "column_type_changed":
                case "column_nullability_changed":
                case "unchanged":
                    break;
                case "unknown":
                    lastChangeUnknown = true;
                    names.removeAll(before);
                    names.addAll(after);
                    rows.values().forEach(r -> {
                        before.forEach(r::remove);
                        after.forEach(a -> r.putIfAbsent(a, UNKNOWN));
                    });
                    break;
                default:
                    violation("a change of class " + kind + " from column DDL", e);
            }
        }
        if (columns == null) {
            boolean unknownOrUnchanged = true;
            for (JsonNode c : changes) {
                String kind = c.get("class").asText();
                unknownOrUnchanged &= kind.equals("unknown") || kind.equals("unchanged");
            }
            if (!unknownOrUnchanged) {
                violation("a schema change without a shape classified as " + classified, e);
            }
            shape = null; // the next stream row tells it
            return;
        }
        // an unknown change is not exact by definition (with no shape held, its columns before are none)
        if (!lastChangeUnknown && !new TreeSet<>(names).equals(new TreeSet<>(columns))) {
            violation("changes applied to " + shape + " give " + names + ", not the event's shape " + columns, e);
        }
        // a sink follows the event's shape: a column it does not have is gone (an unknown change from no shape
        // held names no column gone)
        rows.values().forEach(r -> r.keySet().retainAll(columns));
        shape = columns;
    }

    /** The table's columns are {@code columns}, as a sink learns them: a column a row lacks is of unknown value. */
    private void learn(List<String> columns) {
        shape = columns;
        rows.values().forEach(r -> {
            r.keySet().retainAll(columns);
            columns.forEach(c -> r.putIfAbsent(c, UNKNOWN));
        });
    }

    private static List<String> names(JsonNode columns) {
        List<String> names = new ArrayList<>();
        if (columns != null) {
            columns.forEach(c -> names.add(c.get("name").asText()));
        }
        return names;
    }

    private static TreeSet<String> fields(JsonNode row) {
        TreeSet<String> names = new TreeSet<>();
        row.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static Map<String, Object> values(JsonNode row) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = row.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            values.put(f.getKey(), f.getValue().isNull() ? null : f.getValue().asText());
        }
        return values;
    }

    private void violation(String what, JsonNode event) {
        violationCount++;
        if (violations.size() < KEPT_VIOLATIONS) {
            violations.add("event " + events + ": " + what + ": " + event);
        }
    }

    /**
     * Whether the rows held are {@code expected} (key text to column to value text, as read from the
     * table): the same keys, each row with the same columns, and every value known equal.
     */
    public boolean reached(Map<String, Map<String, String>> expected) {
        return differences(expected).isEmpty();
    }

    /** How the rows held differ from {@code expected}: a few keys of each kind; empty when they do not. */
    public String differences(Map<String, Map<String, String>> expected) {
        List<String> missing = new ArrayList<>();
        List<String> different = new ArrayList<>();
        expected.forEach((k, row) -> {
            Map<String, Object> held = rows.get(k);
            if (held == null) {
                missing.add(k);
            } else if (!held.keySet().equals(row.keySet()) || row.entrySet().stream().anyMatch(
                    c -> held.get(c.getKey()) != UNKNOWN && !Objects.equals(held.get(c.getKey()), c.getValue()))) {
                different.add(k + " " + held + " expected " + row);
            }
        });
        List<String> unexpected = rows.keySet().stream().filter(k -> !expected.containsKey(k)).toList();
        if (missing.isEmpty() && different.isEmpty() && unexpected.isEmpty()) {
            return "";
        }
        return missing.size() + " missing " + first(missing) + ", " + unexpected.size() + " still there though gone "
                + first(unexpected) + ", " + different.size() + " with other values or columns " + first(different);
    }

    private static List<String> first(List<String> keys) {
        return keys.subList(0, Math.min(5, keys.size()));
    }

    public int violationCount() {
        return violationCount;
    }

    /** The first violations, with their events. */
    public List<String> violations() {
        return violations;
    }

    public Map<String, Integer> ops() {
        return ops;
    }

    /** How many classified changes of each class the schema change events carried. */
    public Map<String, Integer> classes() {
        return classes;
    }

    /** Each classified change in order: its class, the columns before and after it. */
    public List<String> changes() {
        return classified;
    }

    /**
     * The column names of the last schema change event's shape (else of the first event's, or of the first
     * row after a change without a shape); null before any event, and after a change without a shape until a row.
     */
    public List<String> shape() {
        return shape;
    }

    /** How many rows held have a column of unknown value. */
    public long rowsWithUnknownValues() {
        return rows.values().stream().filter(r -> r.containsValue(UNKNOWN)).count();
    }
}
