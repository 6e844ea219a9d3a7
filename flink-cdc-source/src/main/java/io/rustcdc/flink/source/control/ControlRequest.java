package io.rustcdc.flink.source.control;

import io.rustcdc.flink.source.CdcException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One request to a running source's snapshot control: an operation and the tables it names, with
 * the id it is answered under, and (requests only) a row filter per table. Its file form is lines
 * {@code operation=request}, {@code tables=public.orders,public.items} and, per filtered table, {@code
 * filter.public.orders=region = 'EU'} (the condition on one line, up to its end); no tables means every
 * table being snapshotted (pause, resume, stop). A row filter is raw SQL in the database's dialect,
 * trusted like the job's configuration: never build one from user data. Immutable.
 *
 * <pre>{@code
 * ControlRequest r = ControlRequest.of(ControlRequest.Operation.REQUEST, List.of("public.orders"));
 * ControlRequest eu = ControlRequest.request(List.of("public.orders"), Map.of("public.orders", "region = 'EU'"));
 * }</pre>
 */
@PublicEvolving
public final class ControlRequest {
    private static final String FILTER = "filter.";
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,80}");

    /** What a request does; see docs/operations.md. */
    @PublicEvolving
    public enum Operation {
        /** Snapshot tables (again): resolved against the catalogue first, all or none. */
        REQUEST,
        /** No new chunks of the tables are read; the stream goes on. */
        PAUSE,
        /** Paused tables' chunks are read again. */
        RESUME,
        /** The tables' remaining chunks are dropped; the stop lasts until the table is requested again. */
        STOP
    }

    private final String id;
    private final Operation operation;
    private final List<String> tables;
    private final Map<String, String> rowFilters;

    private ControlRequest(String id, Operation operation, List<String> tables, Map<String, String> rowFilters) {
        this.id = requireId(id);
        this.operation = Objects.requireNonNull(operation, "operation");
        this.tables = List.copyOf(tables);
        this.rowFilters = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(rowFilters));
        if (operation == Operation.REQUEST && tables.isEmpty()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Control request " + id + " requests a snapshot "
                    + "of no table: name at least one, as schema.table");
        }
        if (!rowFilters.isEmpty() && operation != Operation.REQUEST) {
            throw malformed(id, "only a request takes row filters, not " + operation);
        }
        rowFilters.forEach((table, condition) -> {
            if (!this.tables.contains(table)) {
                throw malformed(id, "it has a row filter for " + table + ", which is not among its tables " + tables);
            }
            if (condition == null || condition.isBlank() || condition.contains("\n") || condition.contains("\r")) {
                throw malformed(id, "the row filter of " + table + " is blank or spans lines; give a SQL condition "
                        + "on one line");
            }
        });
    }

    /** A request with a fresh id (the time, then random letters, so ids sort by when they were made). */
    public static ControlRequest of(Operation operation, List<String> tables) {
        return new ControlRequest(freshId(), operation, tables, Map.of());
    }

    public static ControlRequest of(String id, Operation operation, List<String> tables) {
        return new ControlRequest(id, operation, tables, Map.of());
    }

    /**
     * A snapshot request with a fresh id, of {@code tables} ({@code schema.table}), each of those in
     * {@code rowFilters} only of the rows its condition selects (raw, trusted SQL; see the class comment);
     * a table without one is read with its configured filter, if any.
     */
    public static ControlRequest request(List<String> tables, Map<String, String> rowFilters) {
        return new ControlRequest(freshId(), Operation.REQUEST, tables, rowFilters);
    }

    public static ControlRequest request(String id, List<String> tables, Map<String, String> rowFilters) {
        return new ControlRequest(id, Operation.REQUEST, tables, rowFilters);
    }

    private static String freshId() {
        String random = java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        return System.currentTimeMillis() + "-" + random;
    }

    /**
     * Reads a request file's text.
     *
     * @throws CdcException (configuration) naming the request and what is wrong in it
     */
    public static ControlRequest parse(String id, String text) {
        Operation operation = null;
        List<String> tables = new ArrayList<>();
        Map<String, String> rowFilters = new LinkedHashMap<>();
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq < 0) {
                throw malformed(id, "line '" + line + "' is not key=value");
            }
            String key = line.substring(0, eq).strip();
            String value = line.substring(eq + 1).strip();
            switch (key) {
                case "operation":
                    try {
                        operation = Operation.valueOf(value.toUpperCase(Locale.ROOT));
                    } catch (IllegalArgumentException e) {
                        throw malformed(id, "operation '" + value + "' is none of request, pause, resume, stop");
                    }
                    break;
                case "tables":
                    for (String t : value.split(",")) {
                        if (!t.isBlank()) {
                            tables.add(t.strip());
                        }
                    }
                    break;
                default:
                    if (key.startsWith(FILTER) && key.length() > FILTER.length()) {
                        rowFilters.put(key.substring(FILTER.length()), value);
                        break;
                    }
                    throw malformed(id, "key '" + key + "' is none of operation, tables, filter.<schema.table>");
            }
        }
        if (operation == null) {
            throw malformed(id, "it names no operation (operation=request|pause|resume|stop)");
        }
        return new ControlRequest(id, operation, tables, rowFilters);
    }

    /** The file form {@link #parse} reads. */
    public String format() {
        StringBuilder b = new StringBuilder("operation=").append(operation.name().toLowerCase(Locale.ROOT))
                .append("\ntables=").append(String.join(",", tables)).append('\n');
        rowFilters.forEach((table, condition) -> b.append(FILTER).append(table).append('=').append(condition)
                .append('\n'));
        return b.toString();
    }

    public String id() {
        return id;
    }

    public Operation operation() {
        return operation;
    }

    /** The row filters of the request, by table name ({@code schema.table}); empty for none. */
    public Map<String, String> rowFilters() {
        return rowFilters;
    }

    /** Table names as {@code schema.table}; empty: every table being snapshotted (not for a request). */
    public List<String> tables() {
        return tables;
    }

    static String requireId(String id) {
        if (id == null || !ID.matcher(id).matches()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Control request id '" + id + "' is not 1 to 80 "
                    + "letters, digits, '-' or '_'");
        }
        return id;
    }

    private static CdcException malformed(String id, String what) {
        return new CdcException(CdcException.Kind.CONFIGURATION, "Control request " + id + " cannot be read: " + what);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ControlRequest r && id.equals(r.id) && operation == r.operation && tables.equals(r.tables)
                && rowFilters.equals(r.rowFilters);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, operation, tables);
    }

    @Override
    public String toString() {
        return "ControlRequest{" + id + ", " + operation + " " + tables + (rowFilters.isEmpty() ? "" : " " + rowFilters)
                + "}";
    }
}
