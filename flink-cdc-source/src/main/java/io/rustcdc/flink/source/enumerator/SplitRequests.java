package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import java.util.Iterator;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * The readers that asked for a split and have none yet, and what each gets: a planned chunk; once
 * every chunk is read and the {@link StreamGate} lets it, the stream split (to one of them; the others
 * stay idle, for tables added later); or, when the source does not stream, the end. Coordinator
 * thread only.
 */
@Internal
final class SplitRequests<P, M> {
    private final SplitEnumeratorContext<CdcSplit> context;
    private final SnapshotChunks<M> chunks;
    private final StreamOwner<P, M> stream;
    private final boolean streams;
    /**
     * Whether chunks handed out now may have been emitted already by an attempt that failed, into a sink
     * that kept them: after a restore, chunk boundaries and assignments since the checkpoint are lost.
     */
    private final boolean redeliver;
    private final StreamGate gate = new StreamGate();
    private final StartGate start;
    /** Subtasks that asked for a split and have none yet. */
    private final TreeSet<Integer> waiting = new TreeSet<>();

    SplitRequests(SplitEnumeratorContext<CdcSplit> context, SnapshotChunks<M> chunks, StreamOwner<P, M> stream,
            boolean streams, boolean redeliver, StartGate start) {
        this.context = context;
        this.start = start;
        this.chunks = chunks;
        this.stream = stream;
        this.streams = streams;
        this.redeliver = redeliver;
    }

    void add(int subtask) {
        waiting.add(subtask);
    }

    /** {@code subtask} failed over: its request went with it (restored, it asks again if it needs a split). */
    void forget(int subtask) {
        waiting.remove(subtask);
    }

    /** How many readers wait. */
    int waiting() {
        return waiting.size();
    }

    /**
     * Hands out what the waiting readers can get now, chunks of tables not in {@code paused} first;
     * {@code create} makes the stream split when it is due. True when readers wait for chunks not
     * planned yet: the caller has them planned and calls this again.
     */
    boolean assign(Set<TableId> paused, Supplier<StreamSplit<P, M>> create) {
        if (!start.mayAssign(System.nanoTime())) {
            return false; // a checkpoint that holds the first start comes first (see StartGate)
        }
        for (Iterator<Integer> it = waiting.iterator(); it.hasNext(); ) {
            int subtask = it.next();
            if (!context.registeredReaders().containsKey(subtask)) {
                it.remove();
                continue;
            }
            ChunkSplit<M> chunk = chunks.nextUnassigned(paused);
            if (chunk == null && chunks.planning()) {
                return true;
            }
            if (chunk != null) {
                if (redeliver) {
                    chunk = chunk.redelivered();
                }
                chunks.assigned(chunk);
                context.assignSplit(chunk, subtask);
                it.remove();
            } else if (chunks.reading()) {
                return false; // the last chunks are being read: the stream waits for their marks
            } else if (chunks.hasUnassigned()) {
                return false; // chunks of paused tables are left: the stream waits for them
            } else if (streams) {
                if (stream.notCreated() && context.registeredReaders().size() < context.currentParallelism()) {
                    // a reader failed over: restored, it may read again chunks it reported read since its checkpoint,
                    // and it tells so before it registers (see CdcEnumerator#handleSourceEvent)
                    return false;
                }
                if (stream.notCreated() && !gate.mayStart(context.currentParallelism(), System.nanoTime())) {
                    return false; // the snapshot rows of other readers may still be on their way downstream
                }
                if (stream.assign(subtask, create)) {
                    it.remove();
                }
                // other readers stay idle, without splits, for tables added later
            } else {
                context.signalNoMoreSplits(subtask);
                it.remove();
            }
        }
        return false;
    }

    /**
     * Whether readers wait behind a gate that no checkpoint opened yet, whose fallback may come: the {@link
     * StartGate}, or the {@link StreamGate} for the stream split.
     */
    boolean waitOnGate() {
        return !waiting.isEmpty() && (start.waiting() || (gate.armed() && !gate.open()));
    }

    /**
     * A chunk was reported read, or is read again, or the stream split was dropped: until a checkpoint
     * taken after it completes, the stream split waits (see {@link StreamGate}).
     */
    void resetGate() {
        if (stream.notCreated()) {
            gate.reset();
        }
    }

    void checkpointTaken(long checkpointId) {
        start.checkpointTaken(checkpointId);
        gate.checkpointTaken(checkpointId);
    }

    /** A checkpoint completed; true when a gate is open now that may have held readers back. */
    boolean checkpointCompleted(long checkpointId) {
        boolean started = start.checkpointCompleted(checkpointId);
        gate.checkpointCompleted(checkpointId);
        return started || gate.open();
    }
}
