package io.rustcdc.benchmark;

/** The times the benchmark reads from a change event's JSON. */
public final class DebeziumJson {
    private DebeziumJson() {}

    /**
     * The {@code created_at} value of the row, in epoch milliseconds: an RFC 3339 instant in both
     * sides' JSON. The latency writer sets it just before the row's commit; it stands for the commit
     * time where the binlog's has whole seconds (MariaDB).
     */
    public static long createdAtMillis(String event) {
        int at = event.indexOf("\"created_at\":\"") + 14;
        return java.time.Instant.parse(event.substring(at, event.indexOf('"', at))).toEpochMilli();
    }

    /** {@code source.ts_ms}: the commit time, in epoch milliseconds. */
    public static long commitMillis(String event) {
        int source = event.indexOf("\"source\":{");
        int at = event.indexOf("\"ts_ms\":", source) + 8;
        int end = at;
        while (end < event.length() && Character.isDigit(event.charAt(end))) {
            end++;
        }
        return Long.parseLong(event.substring(at, end));
    }
}
