package io.rustcdc.flink.source.control;

import io.rustcdc.flink.source.CdcException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One request to a running source's snapshot control: an operation and the tables it names, with
 * the id it is answered under. Its file form is two lines, {@code operation=pause} and {@code
 * tables=public.orders,public.items}; no tables means every table being snapshotted (pause, resume,
 * stop). Immutable.
 *
 * <pre>{@code
 * ControlRequest r = ControlRequest.of(ControlRequest.Operation.REQUEST, List.of("public.orders"));
 * }</pre>
 */
@PublicEvolving
public final class ControlRequest {
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

    private ControlRequest(String id, Operation operation, List<String> tables) {
        this.id = requireId(id);
        this.operation = Objects.requireNonNull(operation, "operation");
        this.tables = List.copyOf(tables);
        if (operation == Operation.REQUEST && tables.isEmpty()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Control request " + id + " requests a snapshot "
                    + "of no table: name at least one, as schema.table");
        }
    }

    /** A request with a fresh id (the time, then random letters, so ids sort by when they were made). */
    public static ControlRequest of(Operation operation, List<String> tables) {
        String random = java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        return new ControlRequest(System.currentTimeMillis() + "-" + random, operation, tables);
    }

    public static ControlRequest of(String id, Operation operation, List<String> tables) {
        return new ControlRequest(id, operation, tables);
    }

    /**
     * Reads a request file's text.
     *
     * @throws CdcException (configuration) naming the request and what is wrong in it
     */
    public static ControlRequest parse(String id, String text) {
        Operation operation = null;
        List<String> tables = new ArrayList<>();
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
                    throw malformed(id, "key '" + key + "' is none of operation, tables");
            }
        }
        if (operation == null) {
            throw malformed(id, "it names no operation (operation=request|pause|resume|stop)");
        }
        return new ControlRequest(id, operation, tables);
    }

    /** The file form {@link #parse} reads. */
    public String format() {
        return "operation=" + operation.name().toLowerCase(Locale.ROOT) + "\ntables=" + String.join(",", tables) + "\n";
    }

    public String id() {
        return id;
    }

    public Operation operation() {
        return operation;
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
        return o instanceof ControlRequest r && id.equals(r.id) && operation == r.operation && tables.equals(r.tables);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, operation, tables);
    }

    @Override
    public String toString() {
        return "ControlRequest{" + id + ", " + operation + " " + tables + "}";
    }
}
