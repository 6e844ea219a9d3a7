package io.rustcdc.flink.source.control;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The answer to a {@link ControlRequest}: applied, with each named table's state before it, or
 * rejected with the reason (nothing changed then). Its file form is {@code key=value} lines. Immutable.
 */
@PublicEvolving
public final class ControlResult {
    private static final String PREVIOUS = "previous.";

    /** Whether the request changed the source's state as asked. */
    @PublicEvolving
    public enum Outcome {
        APPLIED,
        REJECTED
    }

    private final String id;
    private final Outcome outcome;
    private final String message;
    private final Map<String, String> previous;

    private ControlResult(String id, Outcome outcome, String message, Map<String, String> previous) {
        this.id = ControlRequest.requireId(id);
        this.outcome = Objects.requireNonNull(outcome, "outcome");
        this.message = Objects.requireNonNull(message, "message").replace('\n', ' ');
        this.previous = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(previous));
    }

    /** @param previous each table's state (see {@link TableReadout#status()}) before the request, by name */
    public static ControlResult applied(String id, String message, Map<String, String> previous) {
        return new ControlResult(id, Outcome.APPLIED, message, previous);
    }

    public static ControlResult rejected(String id, String reason) {
        return new ControlResult(id, Outcome.REJECTED, reason, Map.of());
    }

    public static ControlResult parse(String id, String text) {
        Outcome outcome = null;
        String message = "";
        Map<String, String> previous = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String key = line.substring(0, eq);
            String value = line.substring(eq + 1);
            if (key.equals("outcome")) {
                outcome = Outcome.valueOf(value.toUpperCase(Locale.ROOT));
            } else if (key.equals("message")) {
                message = value;
            } else if (key.startsWith(PREVIOUS)) {
                previous.put(key.substring(PREVIOUS.length()), value);
            }
        }
        if (outcome == null) {
            throw new IllegalArgumentException("The result of control request " + id + " names no outcome: " + text);
        }
        return new ControlResult(id, outcome, message, previous);
    }

    public String format() {
        StringBuilder b = new StringBuilder().append("id=").append(id).append('\n')
                .append("outcome=").append(outcome.name().toLowerCase(Locale.ROOT)).append('\n')
                .append("message=").append(message).append('\n');
        previous.forEach((table, state) -> b.append(PREVIOUS).append(table).append('=').append(state).append('\n'));
        return b.toString();
    }

    public String id() {
        return id;
    }

    public Outcome outcome() {
        return outcome;
    }

    public boolean applied() {
        return outcome == Outcome.APPLIED;
    }

    /** What was done, or why nothing was. */
    public String message() {
        return message;
    }

    /** Each named table's state before the request, by {@code schema.table}; empty when rejected. */
    public Map<String, String> previous() {
        return previous;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ControlResult r && id.equals(r.id) && outcome == r.outcome && message.equals(r.message)
                && previous.equals(r.previous);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, outcome, message, previous);
    }

    @Override
    public String toString() {
        return "ControlResult{" + id + ", " + outcome + ": " + message + (previous.isEmpty() ? "" : ", was " + previous)
                + "}";
    }
}
