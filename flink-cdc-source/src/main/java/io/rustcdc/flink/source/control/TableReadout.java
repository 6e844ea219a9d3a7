package io.rustcdc.flink.source.control;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One table's line of the state readout the enumerator writes: its snapshot status, chunks planned
 * and read (-1: not known to the enumerator, see docs/operations.md), the row filter in effect, and
 * why its snapshot failed (empty unless {@link #FAILED}). Immutable.
 */
@PublicEvolving
public record TableReadout(String table, String status, int chunksPlanned, int chunksRead, String filter,
        String reason) {
    /** Being snapshotted: chunks are planned and read. */
    public static final String SNAPSHOTTING = "snapshotting";
    /** Being snapshotted, but no new chunk is read until it is resumed. */
    public static final String PAUSED = "paused";
    /** Its snapshot was stopped; requesting the table again starts it over. */
    public static final String STOPPED = "stopped";
    /**
     * Its snapshot ended because the row filter of its request failed on some rows: {@link #reason} has the
     * database's message, shortened (the job's log has all of it); as stopped otherwise, also after a restore.
     */
    public static final String FAILED = "failed";
    /** Snapshotted; the stream captures it. */
    public static final String CAPTURED = "captured";
    /** Requested again; its new snapshot starts when the stream's reader takes it. */
    public static final String QUEUED = "queued";
    /** The source does not capture it. */
    public static final String NOT_CAPTURED = "not-captured";
    /** The filter column of a table whose snapshot has no row filter. */
    public static final String NO_FILTER = "none";
    static final String HEADER = "table\tstatus\tchunks-planned\tchunks-read\tfilter\treason";
    /** The header of readouts written before the reason column (a job of an earlier version). */
    static final String HEADER_WITHOUT_REASON = "table\tstatus\tchunks-planned\tchunks-read\tfilter";

    public TableReadout {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(reason, "reason");
    }

    /** A line with no reason (every status but {@link #FAILED}). */
    public TableReadout(String table, String status, int chunksPlanned, int chunksRead, String filter) {
        this(table, status, chunksPlanned, chunksRead, filter, "");
    }

    /** Whether its chunks are planned or read now, or will be (snapshotting, paused or queued). */
    public boolean inProgress() {
        return status.equals(SNAPSHOTTING) || status.equals(PAUSED) || status.equals(QUEUED);
    }

    static String format(List<TableReadout> tables) {
        StringBuilder b = new StringBuilder(HEADER).append('\n');
        for (TableReadout t : tables) {
            b.append(t.table).append('\t').append(t.status).append('\t').append(t.chunksPlanned).append('\t')
                    .append(t.chunksRead).append('\t').append(escape(t.filter)).append('\t').append(escape(t.reason))
                    .append('\n');
        }
        return b.toString();
    }

    /** A filter or reason on one field: backslash, tab, line feed and carriage return as \\, \t, \n and \r. */
    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
    }

    static String unescape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                b.append(n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n);
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    static List<TableReadout> parse(String text) {
        List<TableReadout> tables = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.equals(HEADER) || line.equals(HEADER_WITHOUT_REASON) || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            if (f.length != 5 && f.length != 6) {
                throw new IllegalArgumentException("A line of the snapshot state readout is not 6 fields (5 before "
                        + "the reason column): " + line);
            }
            tables.add(new TableReadout(f[0], f[1], Integer.parseInt(f[2]), Integer.parseInt(f[3]), unescape(f[4]),
                    f.length == 6 ? unescape(f[5]) : ""));
        }
        return tables;
    }
}
