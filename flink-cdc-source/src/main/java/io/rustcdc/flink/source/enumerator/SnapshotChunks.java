package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.FinalFailure;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.ChunkOrigins;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TablePlan;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.MetricGroup;

/**
 * The snapshot's chunks as the enumerator tracks them: the plans of tables not planned to their end
 * (the first one is being planned), chunks planned but not assigned, assigned and being read, and
 * read. Used on the coordinator thread only (the gauges read it from a metrics thread).
 *
 * <p>A plan stays here, unchanged, while the worker plans chunks from it: a checkpoint taken then
 * holds the plan as it was, and a restored enumerator plans those chunks again.
 *
 * <p>Each chunk read is checked against the table's chunks read before it ({@link ChunkOrigins}): a
 * table replaced under its name between two chunks fails the job when the second one is reported,
 * with or without a stream after the snapshot.
 */
@Internal
final class SnapshotChunks<M> {
    private final Deque<TablePlan> plans = new ArrayDeque<>();
    private final Deque<ChunkSplit<M>> unassigned = new ArrayDeque<>();
    private final Map<String, ChunkSplit<M>> inFlight = new LinkedHashMap<>();
    private final Map<String, ChunkSplit<M>> finished = new LinkedHashMap<>();
    private final Map<TableId, Integer> chunksPlanned = new ConcurrentHashMap<>();
    private final Map<TableId, Integer> chunksRead = new ConcurrentHashMap<>();
    /** The plan the worker is planning chunks from; null while it plans none. */
    @Nullable private TablePlan planning;
    /** Tables whose snapshot was stopped: chunks of theirs reported read or handed back are dropped. */
    private final Set<TableId> dropped = new HashSet<>();
    /** The table each table's read chunks came from. */
    private final ChunkOrigins<M> origins;

    /** @param tableIdentity the connector's {@code tableIdentity} */
    SnapshotChunks(EnumeratorState<?, M> state, Function<? super M, ?> tableIdentity) {
        this.origins = new ChunkOrigins<>(tableIdentity);
        plans.addAll(state.plans);
        unassigned.addAll(state.unassigned);
        state.inFlight.forEach(c -> inFlight.put(c.splitId(), c));
        state.finished.forEach(this::finish);
    }

    void addPlans(Collection<TablePlan> tablePlans) {
        plans.addAll(tablePlans);
    }

    /** A chunk to assign, if one is planned for a table not in {@code paused}. */
    @Nullable
    ChunkSplit<M> nextUnassigned(Set<TableId> paused) {
        for (Iterator<ChunkSplit<M>> it = unassigned.iterator(); it.hasNext(); ) {
            ChunkSplit<M> c = it.next();
            if (!paused.contains(c.table())) {
                it.remove();
                return c;
            }
        }
        return null;
    }

    /** Whether chunks are planned but not assigned (of paused tables, when {@link #nextUnassigned} finds none). */
    boolean hasUnassigned() {
        return !unassigned.isEmpty();
    }

    /** Whether a table still has chunks to plan. */
    boolean planning() {
        return !plans.isEmpty();
    }

    /**
     * The plan to plan chunks from next, of a table not in {@code paused}, taken as in progress; null
     * when the worker is at it already or nothing is left to plan.
     */
    @Nullable
    TablePlan startPlanning(Set<TableId> paused) {
        if (planning != null) {
            return null;
        }
        for (TablePlan p : plans) {
            if (!paused.contains(p.table())) {
                planning = p;
                return p;
            }
        }
        return null;
    }

    /** Takes the chunks the worker planned: they wait to be assigned, and the plan goes on where they end. */
    void planned(CatalogWorker.PlannedChunks<M> result) {
        if (planning != result.from() || plans.stream().noneMatch(p -> p == result.from())) {
            throw new IllegalStateException("Chunks of " + result.from() + " were planned, but the enumerator was "
                    + "planning " + planning);
        }
        planning = null;
        boolean stopped = dropped.contains(result.from().table()); // stopped while the worker planned
        List<TablePlan> all = new ArrayList<>(plans);
        plans.clear();
        for (TablePlan p : all) {
            if (p != result.from()) {
                plans.add(p);
            } else if (result.next() != null && !stopped) {
                plans.add(result.next());
            }
        }
        if (stopped) {
            return;
        }
        unassigned.addAll(result.chunks());
        result.chunks().forEach(c -> chunksPlanned.merge(c.table(), 1, Integer::sum));
    }

    /**
     * Drops what is left of {@code table}'s snapshot: its plan, its chunks not assigned and those read
     * (a chunk being read is dropped when it is reported, see {@link #read}). A plan being planned
     * stays until the worker is done with it, then its chunks are dropped too.
     */
    void drop(TableId table) {
        dropped.add(table);
        plans.removeIf(p -> p.table().equals(table) && p != planning);
        unassigned.removeIf(c -> c.table().equals(table));
        finished.values().removeIf(c -> c.table().equals(table));
        origins.forget(table);
    }

    /** {@code table} is snapshotted again from its start: its chunks are no longer dropped. */
    void undrop(TableId table) {
        dropped.remove(table);
    }

    /** Whether the snapshot of {@code table} was stopped. */
    boolean stopped(TableId table) {
        return dropped.contains(table);
    }

    /**
     * Whether rows of {@code table} may have gone out in this snapshot: a chunk of it was read or is being read,
     * or waits to be assigned again after an attempt that failed may have emitted it (redelivered).
     */
    boolean delivered(TableId table) {
        return reading(table) || finished.values().stream().anyMatch(c -> c.table().equals(table))
                || unassigned.stream().anyMatch(c -> c.table().equals(table) && c.isRedelivered());
    }

    /** Whether chunks of {@code table} are assigned and being read. */
    boolean reading(TableId table) {
        return inFlight.values().stream().anyMatch(c -> c.table().equals(table));
    }

    /** Whether {@code table} has chunks to plan, to assign or being read. */
    boolean inProgress(TableId table) {
        return plans.stream().anyMatch(p -> p.table().equals(table)) || reading(table)
                || unassigned.stream().anyMatch(c -> c.table().equals(table));
    }

    int chunksPlanned(TableId table) {
        return chunksPlanned.getOrDefault(table, 0);
    }

    int chunksRead(TableId table) {
        return chunksRead.getOrDefault(table, 0);
    }

    /** The worker could not plan: nothing changed, the plan is as it was. */
    void planningFailed() {
        planning = null;
    }

    void assigned(ChunkSplit<M> chunk) {
        inFlight.put(chunk.splitId(), chunk);
    }

    /**
     * A reader gave back {@code chunk}: read (with its mark) or to be assigned again, first. A chunk
     * given back unread was assigned after the checkpoint its reader restored: a mark reported for it
     * since is forgotten, the one read next replaces it.
     */
    void returned(ChunkSplit<M> chunk, ChunkSplit<M> toAssign) {
        inFlight.remove(chunk.splitId());
        if (dropped.contains(chunk.table())) {
            return;
        }
        if (chunk.mark() == null) {
            forgetRead(chunk);
            unassigned.addFirst(toAssign);
        } else {
            finish(chunk);
        }
    }

    /**
     * A restored reader reads {@code chunk} again: it had not read it at the checkpoint it restored,
     * though it reported it read since. The chunk is being read until it is reported again, with the
     * mark that replaces the one reported before.
     */
    void rereading(ChunkSplit<M> chunk) {
        if (dropped.contains(chunk.table())) {
            return;
        }
        forgetRead(chunk);
        inFlight.put(chunk.splitId(), chunk);
    }

    private void forgetRead(ChunkSplit<M> chunk) {
        if (finished.remove(chunk.splitId()) != null) {
            chunksRead.merge(chunk.table(), -1, Integer::sum);
        }
    }

    /** A reader has read {@code chunk}, which carries its mark. */
    void read(ChunkSplit<M> chunk) {
        if (inFlight.remove(chunk.splitId()) != null) {
            chunksRead.merge(chunk.table(), 1, Integer::sum);
        }
        if (!dropped.contains(chunk.table())) {
            finish(chunk);
        }
    }

    /**
     * A read chunk kept for the stream's handoff, once it is known to come from the same table as its
     * table's other chunks.
     *
     * @throws FinalFailure when it does not (the job fails: a restore would read the same two tables)
     */
    private void finish(ChunkSplit<M> chunk) {
        try {
            origins.read(chunk);
        } catch (RuntimeException e) {
            throw FinalFailure.markUnchecked(e);
        }
        finished.put(chunk.splitId(), chunk);
    }

    /** Whether chunks are being read. */
    boolean reading() {
        return !inFlight.isEmpty();
    }

    /**
     * Forgets the read chunks once a completed checkpoint holds the stream split, which carries what
     * its handoff needs; until then a failure may hand that split back, to be built again.
     */
    void forgetFinished() {
        finished.clear();
        origins.clear(); // the stream's handoff compares the chunks of tables added from now on
    }

    List<TablePlan> plans() {
        return new ArrayList<>(plans);
    }

    List<ChunkSplit<M>> unassigned() {
        return new ArrayList<>(unassigned);
    }

    List<ChunkSplit<M>> inFlight() {
        return new ArrayList<>(inFlight.values());
    }

    List<ChunkSplit<M>> finished() {
        return new ArrayList<>(finished.values());
    }

    /** Snapshot progress: chunks planned and read, in all and per table, and tables still being planned. */
    void registerMetrics(MetricGroup group, Collection<TableId> tables) {
        group.gauge("snapshotTablesBeingPlanned", () -> plans.size());
        group.gauge("snapshotChunksInFlight", () -> inFlight.size() + unassigned.size());
        group.gauge("snapshotChunksRead", () -> chunksRead.values().stream().mapToInt(Integer::intValue).sum());
        for (TableId table : tables) {
            MetricGroup t = group.addGroup("table", table.qualifiedName());
            t.gauge("chunksPlanned", () -> chunksPlanned.getOrDefault(table, 0));
            t.gauge("chunksRead", () -> chunksRead.getOrDefault(table, 0));
            t.gauge("planningComplete", () -> plans.stream().noneMatch(p -> p.table().equals(table)) ? 1 : 0);
        }
    }
}
