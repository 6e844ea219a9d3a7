package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.control.ControlRequest;
import io.rustcdc.flink.source.control.ControlResult;
import io.rustcdc.flink.source.control.TableReadout;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.TablePlan;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.annotation.Internal;

/**
 * The on-demand snapshot operations (request, pause, resume, stop) and their durable flags, applied
 * on the coordinator thread. What a table's status is, and what applying an operation does to the
 * snapshot, the enumerator says through {@link Snapshot}; this class decides, answers each request
 * with the tables' states before it, and keeps the flags a checkpoint holds ({@link ControlState}).
 * Not thread-safe.
 */
@Internal
final class SnapshotOperations {
    /** The enumerator, as the operations see it. */
    interface Snapshot {
        /** Whether the first snapshot is under way (the stream split is not created). */
        boolean first();

        /** Whether the source streams after its snapshot (a table is read again by the stream's reader). */
        boolean streams();

        boolean captured(TableId table);

        /** Whether {@code table}'s snapshot is under way in the enumerator (first snapshot) or handed to the stream. */
        boolean inSnapshot(TableId table);

        /** Whether chunks of {@code table} are being read by readers of the first snapshot. */
        boolean readingChunks(TableId table);

        /** Every table the source captures or is taking in. */
        Set<TableId> tables();

        int chunksPlanned(TableId table);

        int chunksRead(TableId table);

        /** Takes a table not captured into the snapshot (or hands it to the stream). */
        void startNew(TableDiscovery.Found table);

        /**
         * Hands a captured table to the stream's reader to be read again, with the next {@link #changed},
         * or when it holds the stream.
         */
        void reread(TablePlan plan);

        /** Drops what is left of {@code table}'s snapshot. */
        void drop(TableId table);

        /** The row filter the configuration gives {@code table}'s snapshots; null for none. */
        @javax.annotation.Nullable
        String configuredRowFilter(TableId table);

        /** The flags changed: chunks may be assigned, the stream's reader is told them, then the rereads. */
        void changed();
    }

    /** The most of a database's message a failed table's reason keeps (the job's log has all of it). */
    static final int REASON_LENGTH = 300;

    private final Snapshot snapshot;
    final Set<TableId> paused = new TreeSet<>();
    final Set<TableId> stopped = new TreeSet<>();
    /** Stopped tables whose snapshot ended because a requested row filter failed, with the reason. */
    private final Map<TableId, String> failed = new TreeMap<>();
    /** Captured tables requested again that the stream's reader has not taken yet. */
    final Map<TableId, TablePlan> rereads = new LinkedHashMap<>();
    /** Rereads the stream's reader took, until a checkpoint that holds them completes. */
    final Map<TableId, TablePlan> acceptedRereads = new LinkedHashMap<>();
    /** Tables the stream's reader is snapshotting while it streams. */
    final Set<TableId> streamSnapshotting = new TreeSet<>();
    /** Chunks the stream's reader read, by table, since this enumerator started. */
    private final Map<TableId, Integer> streamChunksRead = new HashMap<>();
    /** The row filter of each table's last snapshot started here or before a restore (empty: none). */
    private final Map<TableId, String> rowFilters = new HashMap<>();
    /** Ids of the control requests answered. */
    final Set<String> applied = new TreeSet<>();
    private final TreeMap<Long, Set<String>> appliedAt = new TreeMap<>();
    /** The rereads accepted when each checkpoint was taken (the plans themselves: a table may be requested again). */
    private final TreeMap<Long, Map<TableId, TablePlan>> acceptedAt = new TreeMap<>();

    SnapshotOperations(Snapshot snapshot, ControlState state) {
        this.snapshot = snapshot;
        paused.addAll(state.paused());
        stopped.addAll(state.stopped());
        state.rereads().forEach(p -> rereads.put(p.table(), p));
        streamSnapshotting.addAll(state.streamSnapshotting());
        applied.addAll(state.applied());
        rowFilters.putAll(state.rowFilters());
        failed.putAll(state.failed());
    }

    /**
     * After a restore: one warning per table whose snapshot was under way (snapshotting, paused or queued)
     * with another row filter than the configuration gives it now. That snapshot goes on with the filter
     * it started with, which its plan and chunks carry in the state, so that it reads the rows of one
     * condition; the configured one applies to the table's snapshots started from now on.
     */
    List<String> restoredFiltersDiffering(java.util.function.Function<TableId, String> originOfConfigured) {
        List<String> warnings = new ArrayList<>();
        for (TableId t : new TreeSet<>(rowFilters.keySet())) {
            String kept = rowFilters.get(t);
            String configured = snapshot.configuredRowFilter(t);
            if (!inProgress(t) || kept.equals(configured == null ? "" : configured)) {
                continue;
            }
            warnings.add("The snapshot of table " + t + " was under way when the restored state was taken, with the row "
                    + "filter " + shown(kept) + "; the configuration now gives it " + (configured == null ? "none"
                    : shown(configured) + " (" + originOfConfigured.apply(t) + ")") + ". The snapshot goes on with "
                    + shown(kept) + ", the filter it started with (its plan and chunks carry it in the state), so that "
                    + "it reads the rows of one condition; the configured filter applies to the table's snapshots "
                    + "started from now on. To read the table with it now, stop the table's snapshot and request it "
                    + "again with the control tool (docs/operations.md, On-demand snapshots)");
        }
        return warnings;
    }

    private static String shown(String filter) {
        return filter.isEmpty() ? "none" : "[" + filter + "]";
    }

    /** A snapshot of {@code plan}'s table starts, with the plan's row filter: the readout shows it. */
    void snapshotStarted(TablePlan plan) {
        rowFilters.put(plan.table(), plan.rowFilter() == null ? "" : plan.rowFilter());
    }

    /** The row filter of {@code table}'s snapshot under way or last, else the configured one; "none" for none. */
    private String rowFilter(TableId table) {
        String f = rowFilters.get(table);
        if (f == null) {
            f = snapshot.configuredRowFilter(table);
        }
        return f == null || f.isEmpty() ? TableReadout.NO_FILTER : f;
    }

    /** A table's status, as the readout and the answers name it (see {@link TableReadout}). */
    String status(TableId table) {
        if (stopped.contains(table)) {
            return failed.containsKey(table) ? TableReadout.FAILED : TableReadout.STOPPED;
        }
        if (snapshot.inSnapshot(table) || streamSnapshotting.contains(table)) {
            return paused.contains(table) ? TableReadout.PAUSED : TableReadout.SNAPSHOTTING;
        }
        if (rereads.containsKey(table)) {
            return paused.contains(table) ? TableReadout.PAUSED : TableReadout.QUEUED;
        }
        return snapshot.captured(table) ? TableReadout.CAPTURED : TableReadout.NOT_CAPTURED;
    }

    private boolean inProgress(TableId table) {
        String s = status(table);
        return s.equals(TableReadout.SNAPSHOTTING) || s.equals(TableReadout.PAUSED) || s.equals(TableReadout.QUEUED);
    }

    /** Answers a request whose tables could not be resolved, or could not be read. */
    ControlResult reject(String id, String reason) {
        applied.add(id);
        return ControlResult.rejected(id, reason);
    }

    /** Applies a request; {@code resolved}: its tables, resolved against the catalogue (requests only). */
    ControlResult apply(ControlRequest request, List<TableDiscovery.Found> resolved) {
        applied.add(request.id());
        if (request.operation() == ControlRequest.Operation.REQUEST) {
            return request(request.id(), resolved);
        }
        List<TableId> named = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        Map<String, TableId> byName = new HashMap<>();
        Set<TableId> all = new TreeSet<>(snapshot.tables());
        all.addAll(stopped);
        all.addAll(rereads.keySet());
        all.addAll(streamSnapshotting);
        all.forEach(t -> byName.put(t.qualifiedName(), t));
        for (String name : request.tables()) {
            TableId t = byName.get(name);
            if (t == null) {
                unknown.add(name);
            } else if (!named.contains(t)) {
                named.add(t);
            }
        }
        if (!unknown.isEmpty()) {
            return ControlResult.rejected(request.id(), "The source captures no table " + unknown + " (name each as "
                    + "schema.table; a table not captured yet is taken in by a request); nothing was changed");
        }
        if (named.isEmpty()) {
            for (TableId t : all) {
                if (request.operation() == ControlRequest.Operation.RESUME ? paused.contains(t) : inProgress(t)) {
                    named.add(t);
                }
            }
        }
        Map<String, String> previous = previous(named);
        List<TableId> changed = new ArrayList<>();
        for (TableId t : named) {
            switch (request.operation()) {
                case PAUSE:
                    if (inProgress(t) && paused.add(t)) {
                        changed.add(t);
                    }
                    break;
                case RESUME:
                    if (paused.remove(t)) {
                        changed.add(t);
                    }
                    break;
                case STOP:
                    if (inProgress(t)) {
                        stop(t);
                        changed.add(t);
                    }
                    break;
                default:
                    throw new IllegalStateException("Unknown operation " + request.operation());
            }
        }
        String verb = request.operation().name().toLowerCase(java.util.Locale.ROOT);
        return ControlResult.applied(request.id(), changed.isEmpty() ? "Nothing to " + verb + ": no table changed"
                : verb + ": " + names(changed), previous);
    }

    private void stop(TableId t) {
        snapshot.drop(t);
        stopped.add(t);
        paused.remove(t);
        rereads.remove(t);
        acceptedRereads.remove(t);
        streamSnapshotting.remove(t);
    }

    /**
     * The stream's reader could not read {@code table}'s snapshot: the row filter {@code rowFilter} of a
     * request failed on some rows, as {@code serverMessage} says. The snapshot ends as a stop ends it, and
     * the table reads {@code failed}, with the message shortened as its reason, until it is requested again
     * (also after a restore). False (nothing changed) when that snapshot is no longer under way (stopped
     * or requested again with another filter meanwhile).
     */
    boolean failed(TableId table, String rowFilter, String serverMessage) {
        if (!inProgress(table) || !rowFilter.equals(rowFilters.get(table))) {
            return false;
        }
        stop(table);
        failed.put(table, reason(serverMessage));
        return true;
    }

    /**
     * {@code serverMessage} on one line (line breaks and tabs as spaces), at most {@link #REASON_LENGTH}
     * characters: longer, its start and an ellipsis.
     */
    static String reason(String serverMessage) {
        String oneLine = serverMessage.strip().replaceAll("\\s+", " ");
        if (oneLine.length() <= REASON_LENGTH) {
            return oneLine;
        }
        int end = REASON_LENGTH - 1;
        if (Character.isHighSurrogate(oneLine.charAt(end - 1))) {
            end--; // not half a character
        }
        return oneLine.substring(0, end) + "\u2026";
    }

    private ControlResult request(String id, List<TableDiscovery.Found> resolved) {
        for (TableDiscovery.Found f : resolved) {
            TableId t = f.plan.table();
            if (snapshot.first() && stopped.contains(t) && snapshot.readingChunks(t)) {
                return ControlResult.rejected(id, "Chunks of " + t.qualifiedName() + ", whose snapshot was stopped, are "
                        + "still being read: send the request again in a moment; nothing was requested");
            }
        }
        List<TableId> tables = resolved.stream().map(f -> f.plan.table()).toList();
        if (!snapshot.streams()) {
            List<TableId> done = tables.stream().filter(t -> !inProgress(t) && snapshot.captured(t)).toList();
            if (!done.isEmpty()) {
                return ControlResult.rejected(id, "The source does not stream (scan.startup.mode = snapshot), so "
                        + "a table it has read cannot be read again: " + names(done) + "; nothing was requested");
            }
        }
        Map<String, String> previous = previous(tables);
        List<TableId> started = new ArrayList<>();
        List<TableId> running = new ArrayList<>();
        for (TableDiscovery.Found f : resolved) {
            TableId t = f.plan.table();
            if (inProgress(t)) {
                running.add(t);
                continue;
            }
            stopped.remove(t);
            failed.remove(t);
            snapshotStarted(f.plan);
            if (snapshot.captured(t)) {
                rereads.put(t, f.plan);
                snapshot.reread(f.plan);
            } else {
                snapshot.startNew(f);
            }
            started.add(t);
        }
        return ControlResult.applied(id, (started.isEmpty() ? "" : "snapshotted from the start: " + names(started))
                + (started.isEmpty() || running.isEmpty() ? "" : "; ")
                + (running.isEmpty() ? "" : "already in progress: " + names(running)), previous);
    }

    private Map<String, String> previous(List<TableId> tables) {
        Map<String, String> previous = new LinkedHashMap<>();
        tables.forEach(t -> previous.put(t.qualifiedName(), status(t)));
        return previous;
    }

    private static String names(List<TableId> tables) {
        return String.join(", ", tables.stream().map(TableId::qualifiedName).toList());
    }

    /**
     * The requests of one poll are applied: chunks may be assigned, and the stream's reader is told the
     * flags before the tables requested (so a table requested and paused in one poll is not read).
     */
    void applied() {
        snapshot.changed();
    }

    /** The stream's reader took these tables: {@code reading} it snapshots now (rereads among them). */
    void accepted(List<TableId> reading) {
        for (TableId t : reading) {
            TablePlan reread = rereads.remove(t);
            if (reread != null) {
                acceptedRereads.put(t, reread);
            }
            if (!stopped.contains(t)) {
                streamSnapshotting.add(t);
            }
        }
    }

    /** The stream's reader emitted a chunk of {@code table}; {@code last}: its snapshot is done. */
    void chunkRead(TableId table, boolean last) {
        streamChunksRead.merge(table, 1, Integer::sum);
        if (last) {
            streamSnapshotting.remove(table);
            paused.remove(table);
        }
    }

    /** The rereads to hand to the stream's reader when it starts (again): those it may lack. */
    List<TablePlan> rereadsToHand() {
        List<TablePlan> plans = new ArrayList<>(acceptedRereads.values());
        rereads.values().stream().filter(p -> !acceptedRereads.containsKey(p.table())).forEach(plans::add);
        return plans;
    }

    /** The readout, one line per table the source captures, takes in, or was told about. */
    List<TableReadout> readout() {
        Set<TableId> all = new TreeSet<>(snapshot.tables());
        all.addAll(stopped);
        all.addAll(rereads.keySet());
        all.addAll(streamSnapshotting);
        List<TableReadout> lines = new ArrayList<>();
        for (TableId t : all) {
            boolean byStream = !snapshot.first() && streamChunksRead.containsKey(t) || streamSnapshotting.contains(t);
            String status = status(t);
            lines.add(new TableReadout(t.qualifiedName(), status, byStream ? -1 : snapshot.chunksPlanned(t),
                    byStream ? streamChunksRead.getOrDefault(t, 0) : snapshot.chunksRead(t), rowFilter(t),
                    status.equals(TableReadout.FAILED) ? failed.get(t) : ""));
        }
        return lines;
    }

    ControlState state(long checkpointId) {
        appliedAt.put(checkpointId, Set.copyOf(applied));
        acceptedAt.put(checkpointId, Map.copyOf(acceptedRereads));
        return new ControlState(paused, stopped, new ArrayList<>(rereads.values()), streamSnapshotting, applied,
                rowFilters, failed);
    }

    /**
     * Checkpoint {@code checkpointId} completed: the rereads it holds are in the stream reader's state,
     * and the requests it holds the answers of are returned, for their files to be deleted.
     */
    Set<String> checkpointCompleted(long checkpointId) {
        Set<String> done = new TreeSet<>();
        appliedAt.headMap(checkpointId, true).values().forEach(done::addAll);
        appliedAt.headMap(checkpointId, true).clear();
        acceptedAt.headMap(checkpointId, true).values().forEach(held -> held.forEach((table, plan) -> {
            if (acceptedRereads.get(table) == plan) {
                acceptedRereads.remove(table);
            }
        }));
        acceptedAt.headMap(checkpointId, true).clear();
        return done;
    }

    /** The files of these requests are deleted: their ids need not be kept. */
    void forget(Set<String> ids) {
        applied.removeAll(ids);
    }
}
