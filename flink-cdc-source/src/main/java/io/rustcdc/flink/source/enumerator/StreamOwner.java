package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import io.rustcdc.flink.source.split.TablePlan;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The enumerator's side of the stream split: where the split is, which subtask holds it, whether that
 * reader has had the answer to its {@link StreamOwnerEvent} (it streams only then), whether a completed
 * checkpoint holds it yet, and the tables added while the stream runs, until that reader accepts them.
 * Coordinator thread only.
 *
 * <p>A split created since the checkpoint its reader restores is handed back by Flink: it is dropped,
 * and made again from the chunks once those read since that checkpoint are read again (their marks
 * change). Assigned as it was, its handoff would hold the first marks, and the stream would emit again
 * the changes between the two, or emit changes before the rows they change.
 */
@Internal
final class StreamOwner<P, M> {
    private static final Logger LOG = LoggerFactory.getLogger(StreamOwner.class);

    private final SplitEnumeratorContext<CdcSplit> context;
    private final boolean atLeastOnce;

    private EnumeratorState.StreamStatus status;
    @Nullable private StreamSplit<P, M> returned;
    /** Tables added after the stream split was created, until its reader accepts them. */
    private final List<TablePlan> added = new ArrayList<>();
    /**
     * Every table handed to the stream's reader since this enumerator started, accepted or not: a
     * reader restored from a checkpoint taken before it accepted one is handed it again.
     */
    private final Map<TableId, TablePlan> handed = new LinkedHashMap<>();
    /** The subtask reading the stream split; -1 while none does. */
    private int subtask = -1;
    /** Whether the stream's reader has had the answer to its {@link StreamOwnerEvent}, which it waits for. */
    private boolean answered;
    /** Whether the answer to the stream's reader, and what it is handed later, counts as redelivered. */
    private boolean redelivers;
    /** Whether the stream split last assigned was one a failed reader handed back, or made again for one. */
    private boolean assignedReturned;
    /** Whether a split was dropped since the last one was assigned: the next one is made again for it. */
    private boolean dropped;
    /**
     * Whether a completed checkpoint holds the split (true while there is none); a restored split is held by the
     * checkpoint restored.
     */
    private boolean held = true;
    /** The first checkpoint taken since the split was created, which holds it once complete; -1: none yet. */
    private long holdingCheckpoint = -1;

    StreamOwner(SplitEnumeratorContext<CdcSplit> context, boolean atLeastOnce, EnumeratorState.StreamStatus status,
            @Nullable StreamSplit<P, M> returned) {
        this.context = context;
        this.atLeastOnce = atLeastOnce;
        this.status = status;
        this.returned = returned;
    }

    EnumeratorState.StreamStatus status() {
        return status;
    }

    /** Whether the stream split is not created yet: the first snapshot is under way. */
    boolean notCreated() {
        return status == EnumeratorState.StreamStatus.NOT_CREATED;
    }

    /** The split a failed reader handed back, until it is assigned again; null when there is none. */
    @Nullable
    StreamSplit<P, M> returnedSplit() {
        return returned;
    }

    /**
     * A failed reader handed the split back. Created since the checkpoint that reader restores, it is
     * dropped (true): the caller makes a new one once the chunks are read again, and the tables handed
     * to that reader since go back out of {@code tables}, to be handed to the next with its answer. A
     * split a completed checkpoint held is assigned again as it is (false).
     */
    boolean handedBack(StreamSplit<P, M> split, Set<TableId> tables) {
        subtask = -1;
        answered = false;
        if (!held) {
            status = EnumeratorState.StreamStatus.NOT_CREATED;
            dropped = true;
            held = true;
            holdingCheckpoint = -1;
            for (TablePlan plan : handed.values()) {
                if (tables.remove(plan.table()) && !adding(plan.table())) {
                    added.add(plan);
                }
            }
            return true;
        }
        returned = split;
        status = EnumeratorState.StreamStatus.RETURNED;
        return false;
    }

    /** A checkpoint is taken: the first one since the split was created holds it once it completes. */
    void checkpointTaken(long checkpointId) {
        if (!held && holdingCheckpoint < 0) {
            holdingCheckpoint = checkpointId;
        }
    }

    /** A checkpoint completed; true when from now on it holds the split, which is never dropped then. */
    boolean checkpointCompleted(long checkpointId) {
        if (held || holdingCheckpoint < 0 || checkpointId < holdingCheckpoint) {
            return false;
        }
        held = true;
        return true;
    }

    /**
     * Assigns the stream split to {@code reader} unless it is assigned: the one handed back, or a new one
     * from {@code create}; false when it is assigned already.
     */
    boolean assign(int reader, Supplier<StreamSplit<P, M>> create) {
        if (status == EnumeratorState.StreamStatus.ASSIGNED) {
            return false;
        }
        assignedReturned = returned != null || dropped;
        dropped = false;
        if (returned == null) {
            held = false;
            holdingCheckpoint = -1;
        }
        context.assignSplit(returned != null ? returned : create.get(), reader);
        status = EnumeratorState.StreamStatus.ASSIGNED;
        returned = null;
        return true;
    }

    /**
     * A reader holds the stream split. A reader restored (or handed a returned split) may lack tables an
     * attempt that failed had accepted after the split's checkpoint, and may have emitted chunks of: they
     * are taken out of {@code tables} and handed to it again with the answer, which it gets now when
     * {@code started}, else from {@link #answer} when the enumerator has started. A table the snapshot
     * control stopped is not handed again.
     */
    void ownedBy(int reader, StreamOwnerEvent owner, Set<TableId> tables, SnapshotOperations operations,
            boolean started) {
        subtask = reader;
        for (TablePlan plan : handed.values()) {
            if (!owner.captured().contains(plan.table()) && !operations.stopped.contains(plan.table())
                    && tables.remove(plan.table())) {
                added.add(plan);
                LOG.info("Subtask {} streams from a state without table {}, which an attempt since took: it is "
                        + "snapshotted again", reader, plan.table());
            }
        }
        redelivers = atLeastOnce && (owner.restored() || assignedReturned);
        answered = false;
        if (started) {
            answer(operations);
        }
    }

    /** Whether a reader holds the split and waits for its answer. */
    boolean awaitsAnswer() {
        return subtask >= 0 && !answered;
    }

    /**
     * Tells the stream's reader the snapshot control's flags (if any), the tables added that its split lacks
     * (maybe none) and the tables requested again: it streams from then on.
     */
    void answer(SnapshotOperations operations) {
        if (!operations.paused.isEmpty() || !operations.stopped.isEmpty()) {
            context.sendEventToSourceReader(subtask, controlEvent(operations));
        }
        context.sendEventToSourceReader(subtask, new TablesAddedEvent(added, redelivers));
        answered = true;
        List<TablePlan> rereads = operations.rereadsToHand();
        if (!rereads.isEmpty()) {
            context.sendEventToSourceReader(subtask, new TablesRereadEvent(rereads));
        }
    }

    /** Whether the split is created and its reader has had its answer: events for it can be sent now. */
    boolean answered() {
        return !notCreated() && subtask >= 0 && answered;
    }

    /** A table found while the stream runs: the stream's reader snapshots it (see {@link #hand}). */
    void add(TablePlan plan) {
        added.add(plan);
        handed.put(plan.table(), plan);
    }

    /**
     * Hands tables {@link #add}ed to the stream's reader, unless it has not had its answer yet (the answer
     * holds them); {@code redelivered}: an attempt that failed may have snapshotted them.
     */
    void hand(List<TablePlan> plans, boolean redelivered) {
        if (!plans.isEmpty() && subtask >= 0 && answered) {
            context.sendEventToSourceReader(subtask, new TablesAddedEvent(plans, redelivered));
        }
    }

    /** Whether {@code table} was added while the stream runs and its reader has not accepted it yet. */
    boolean adding(TableId table) {
        return added.stream().anyMatch(p -> p.table().equals(table));
    }

    /** The tables added that the reader has not accepted yet. */
    List<TablePlan> added() {
        return added;
    }

    /** The stream's reader took these tables. */
    void accepted(Collection<TableId> tables) {
        added.removeIf(p -> tables.contains(p.table()));
    }

    /** The snapshot of {@code table} was stopped: it is no longer handed to the stream's reader. */
    void drop(TableId table) {
        added.removeIf(p -> p.table().equals(table));
        handed.remove(table);
    }

    /** Tells the stream's reader the snapshot control's flags, then {@code rereads} (maybe none). */
    void sendControl(SnapshotOperations operations, List<TablePlan> rereads) {
        context.sendEventToSourceReader(subtask, controlEvent(operations));
        if (!rereads.isEmpty()) {
            context.sendEventToSourceReader(subtask, new TablesRereadEvent(rereads));
        }
    }

    private static SnapshotControlEvent controlEvent(SnapshotOperations operations) {
        return new SnapshotControlEvent(operations.paused, operations.stopped);
    }
}
