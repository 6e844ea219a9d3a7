package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.FinalFailure;
import io.rustcdc.flink.source.SinkGuarantee;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.control.ControlSettings;
import io.rustcdc.flink.source.history.SchemaChange;
import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import io.rustcdc.flink.source.split.TablePlan;
import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out snapshot chunks to readers as they ask, in parallel, then one stream split.
 *
 * <p>Runs on the JobManager. Every method of it, and every handler of the work it gives the
 * {@link CatalogWorker}, runs on the coordinator thread and alone changes its state; all database
 * I/O (the first start, finding added tables, planning chunks) runs through {@link
 * SplitEnumeratorContext#callAsync} on the enumerator's worker thread, so that checkpoints and the
 * JobManager's calls never wait on the database. A reader asking while that work is under way is
 * answered when it is done. A failure of the work fails the job as if the enumerator had thrown it:
 * once, through {@link FinalFailure}, when it is final.
 *
 * <p>The stream split is created when every chunk has been read and reported, and carries their
 * marks for the handoff.
 */
@Internal
public final class CdcEnumerator<P extends SourcePosition & Comparable<P>, M extends Serializable>
        implements SplitEnumerator<CdcSplit, EnumeratorState<P, M>> {
    private static final Logger LOG = LoggerFactory.getLogger(CdcEnumerator.class);
    /** At most this many chunk ends are asked of the database in one call of the worker. */
    static final int CHUNKS_PER_CALL = 4;

    private final SplitEnumeratorContext<CdcSplit> context;
    private final CdcConnector<P, M> connector;
    private final SourceSettings settings;
    private final CatalogWorker<P, M> worker;
    private final SnapshotChunks<M> chunks;
    private final StreamGate gate = new StreamGate();

    private boolean initialized;
    @Nullable private P streamStart;
    @Nullable private SchemaHistory history;
    private final Set<TableId> tables = new HashSet<>();
    private EnumeratorState.StreamStatus streamStatus;
    @Nullable private StreamSplit<P, M> returnedStream;
    /** Tables added after the stream split was created, until its reader accepts them. */
    private final List<TablePlan> added = new ArrayList<>();
    /**
     * Every table handed to the stream's reader since this enumerator started, accepted or not: a
     * reader restored from a checkpoint taken before it accepted one is handed it again.
     */
    private final Map<TableId, TablePlan> streamPlans = new LinkedHashMap<>();
    /** Subtasks that asked for a split and have none yet. */
    private final TreeSet<Integer> waiting = new TreeSet<>();
    /**
     * Whether chunks handed out now may have been emitted already by an attempt that failed: after
     * a restore, chunk boundaries and assignments since the checkpoint are lost.
     */
    private final boolean restored;
    /** Whether the work of {@link #start} is done: until then no split is handed out. */
    private boolean started;
    /** The subtask reading the stream split; -1 while none does. */
    private int streamOwner = -1;
    /** Whether the stream's reader has had the answer to its {@link StreamOwnerEvent}, which it waits for. */
    private boolean ownerAnswered;
    /** Whether the answer to the stream's reader, and what it is handed later, counts as redelivered. */
    private boolean ownerRedelivers;
    /** Whether the stream split last assigned was one a failed reader handed back. */
    private boolean assignedReturned;
    /** The captured and added tables, for discovery on the worker thread. */
    private volatile Set<TableId> known = Set.of();
    private volatile boolean closed;
    private final SnapshotOperations operations;
    /** The snapshot control (see docs/operations.md); null when no control path is set. */
    @Nullable private final ControlLoop controlLoop;

    public CdcEnumerator(SplitEnumeratorContext<CdcSplit> context, CdcConnector<P, M> connector, SourceSettings settings,
            EnumeratorState<P, M> state) {
        this(context, connector, settings, state, null);
    }

    public CdcEnumerator(SplitEnumeratorContext<CdcSplit> context, CdcConnector<P, M> connector, SourceSettings settings,
            EnumeratorState<P, M> state, @Nullable ControlSettings control) {
        this.context = context;
        this.operations = new SnapshotOperations(new OperationsView(), state.control);
        this.connector = connector;
        this.settings = settings;
        this.worker = new CatalogWorker<>(connector, settings);
        this.controlLoop = control == null ? null : new ControlLoop(context, control, worker, operations,
                () -> known, connector.name(), () -> closed);
        this.chunks = new SnapshotChunks<>(state);
        this.initialized = state.initialized;
        this.streamStart = state.streamStart;
        this.history = state.history;
        this.tables.addAll(state.tables);
        this.streamStatus = state.streamStatus;
        this.returnedStream = state.returnedStream;
        this.restored = state.initialized;
        refreshKnown();
    }

    /**
     * Starts the first start's work (see {@link FirstStart}) or, after a restore of a streaming source,
     * the search for tables added since, on the worker thread; returns at once.
     */
    @Override
    public void start() {
        if (!initialized) {
            context.callAsync(worker::firstStart, handler(Function.identity(), this::firstStarted));
        } else if (settings.startupMode().streams()) {
            // tables the include list matches that are not captured: they join the snapshot, or the stream's reader
            // snapshots them while it streams; tables already captured are never read again
            context.callAsync(() -> worker.discover(known, true), handler(Function.identity(), found -> {
                accept(found, true);
                started();
            }));
        } else {
            started();
        }
        // opens the stream gate's fallback when no checkpoint comes (see StreamGate)
        context.callAsync(() -> null, (ignored, error) -> {
            if (!closed && started && streamStatus == EnumeratorState.StreamStatus.NOT_CREATED && gate.armed()
                    && !gate.open() && !waiting.isEmpty()) {
                assignPending();
            }
        }, 1_000, 1_000);
    }

    private void firstStarted(FirstStart.Result<P> found) {
        history = found.history(Instant.now());
        streamStart = found.streamStart();
        tables.addAll(found.tables());
        chunks.addPlans(found.plans());
        refreshKnown();
        streamStatus = EnumeratorState.StreamStatus.NOT_CREATED;
        initialized = true;
        LOG.info("The {} source captures {} tables ({}), startup mode {}{}", connector.name(), tables.size(), tables,
                settings.startupMode(), streamStart == null ? "" : ", stream from " + streamStart);
        started();
    }

    private void started() {
        started = true;
        chunks.registerMetrics(context.metricGroup(), tables);
        if (streamOwner >= 0 && !ownerAnswered) {
            answerOwner();
        }
        scheduleDiscovery();
        if (controlLoop != null) {
            controlLoop.schedule();
        }
        assignPending();
    }

    /**
     * Looks for new tables on the worker thread every {@code scan.table-discovery.interval}; a table
     * whose prerequisites are not met is looked at again next time, any other failure fails the job.
     */
    private void scheduleDiscovery() {
        long interval = settings.tableDiscoveryInterval().toMillis();
        if (interval <= 0 || !settings.startupMode().streams()) {
            return;
        }
        context.callAsync(() -> worker.discover(known, false), handler(error -> new CdcException(
                CdcException.Kind.CONNECTION, "Looking for tables of the " + connector.name()
                        + " source created since it started failed: " + error.getMessage(), error),
                found -> accept(found, false)), interval, interval);
    }

    /**
     * Takes the tables {@link TableDiscovery#find} found into the snapshot, or hands them to the stream's
     * reader; {@code afterRestore}: found by the search after a restore, so the attempt that failed may
     * have been snapshotting them.
     */
    private void accept(List<TableDiscovery.Found> found, boolean afterRestore) {
        List<TablePlan> forStream = new ArrayList<>();
        List<TableId> names = new ArrayList<>();
        boolean snapshotting = streamStatus == EnumeratorState.StreamStatus.NOT_CREATED;
        for (TableDiscovery.Found f : found) {
            TableId table = f.plan.table();
            if (tables.contains(table) || added.stream().anyMatch(p -> p.table().equals(table))) {
                continue; // found twice
            }
            chunks.undrop(table);
            names.add(table);
            if (snapshotting) {
                chunks.addPlans(List.of(f.plan));
                tables.add(table);
                history.recordDdl("shape:" + table.qualifiedName() + ":start",
                        SchemaChange.rowShape(table, f.description.shape(), Instant.now()));
            } else {
                added.add(f.plan);
                streamPlans.put(table, f.plan);
                forStream.add(f.plan);
            }
        }
        if (names.isEmpty()) {
            return;
        }
        refreshKnown();
        LOG.info("Tables the {} source captures from now on: {}; they are snapshotted {}", connector.name(), names,
                snapshotting ? "with the others" : "while the stream runs");
        if (!forStream.isEmpty() && streamOwner >= 0 && ownerAnswered) {
            context.sendEventToSourceReader(streamOwner, new TablesAddedEvent(forStream, afterRestore && atLeastOnce()));
        } else if (snapshotting) {
            assignPending();
        }
    }

    private void refreshKnown() {
        Set<TableId> all = new HashSet<>(tables);
        added.forEach(p -> all.add(p.table()));
        all.addAll(operations.stopped); // a stopped table is taken in again only when it is requested
        known = Set.copyOf(all);
    }

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
        waiting.add(subtaskId);
        assignPending();
    }

    @Override
    @SuppressWarnings("unchecked")
    public void addSplitsBack(List<CdcSplit> splits, int subtaskId) {
        for (CdcSplit split : splits) {
            if (split instanceof StreamSplit<?, ?> stream) {
                streamOwner = -1;
                ownerAnswered = false;
                returnedStream = (StreamSplit<P, M>) stream;
                streamStatus = EnumeratorState.StreamStatus.RETURNED;
            } else if (split instanceof ChunkSplit<?> returned) {
                ChunkSplit<M> chunk = (ChunkSplit<M>) returned;
                chunks.returned(chunk, redeliveredIfAtLeastOnce(chunk));
            }
        }
        LOG.info("Subtask {} returned {} splits; they are assigned again", subtaskId, splits.size());
    }

    @Override
    public void addReader(int subtaskId) {
        // readers ask for splits themselves
    }

    @Override
    @SuppressWarnings("unchecked")
    public void handleSourceEvent(int subtaskId, SourceEvent event) {
        if (event instanceof ChunksFinishedEvent<?> finished) {
            List<String> ids = new ArrayList<>();
            for (ChunkSplit<M> chunk : ((ChunksFinishedEvent<M>) finished).chunks()) {
                chunks.read(chunk);
                ids.add(chunk.splitId());
            }
            context.sendEventToSourceReader(subtaskId, new ChunksAcknowledgedEvent(ids));
            assignPending();
        } else if (event instanceof StreamOwnerEvent owner) {
            streamOwner(subtaskId, owner);
        } else if (event instanceof TablesAcceptedEvent accepted) {
            for (TableId t : accepted.tables()) {
                if (!operations.stopped.contains(t)) {
                    tables.add(t); // a table stopped before its reader took it is not captured
                }
            }
            added.removeIf(p -> accepted.tables().contains(p.table()));
            operations.accepted(accepted.reading());
            refreshKnown();
        } else if (event instanceof StreamChunkReadEvent read) {
            operations.chunkRead(read.table(), read.last());
        } else {
            LOG.warn("Ignored an unknown event from subtask {}: {}", subtaskId, event);
        }
    }

    /**
     * A reader holds the stream split. A reader restored (or handed a returned split) may lack tables an
     * attempt that failed had accepted after the split's checkpoint, and may have emitted chunks of: they
     * are handed to it again. A restored enumerator has none of these (its checkpoint precedes the
     * reader's), and its search for added tables finds them again, which {@link #start} waits for.
     */
    private void streamOwner(int subtaskId, StreamOwnerEvent owner) {
        streamOwner = subtaskId;
        for (TablePlan plan : streamPlans.values()) {
            if (!owner.captured().contains(plan.table()) && !operations.stopped.contains(plan.table())
                    && tables.remove(plan.table())) {
                added.add(plan);
                LOG.info("Subtask {} streams from a state without table {}, which an attempt since took: it is "
                        + "snapshotted again", subtaskId, plan.table());
            }
        }
        ownerRedelivers = atLeastOnce() && (owner.restored() || assignedReturned);
        ownerAnswered = false;
        if (started) {
            answerOwner();
        }
    }

    /** Tells the stream's reader the tables added that its split lacks (maybe none): it streams from then on. */
    private void answerOwner() {
        if (!operations.paused.isEmpty() || !operations.stopped.isEmpty()) {
            context.sendEventToSourceReader(streamOwner, controlEvent());
        }
        context.sendEventToSourceReader(streamOwner, new TablesAddedEvent(added, ownerRedelivers));
        ownerAnswered = true;
        List<TablePlan> rereads = operations.rereadsToHand();
        if (!rereads.isEmpty()) {
            context.sendEventToSourceReader(streamOwner, new TablesRereadEvent(rereads));
        }
    }

    private SnapshotControlEvent controlEvent() {
        return new SnapshotControlEvent(operations.paused, operations.stopped);
    }

    private boolean streamAnswered() {
        return streamStatus != EnumeratorState.StreamStatus.NOT_CREATED && streamOwner >= 0 && ownerAnswered;
    }

    private boolean atLeastOnce() {
        return settings.sinkGuarantee() == SinkGuarantee.AT_LEAST_ONCE;
    }

    /** Hands out what the waiting readers can get now; a final failure is marked so. */
    private void assignPending() {
        try {
            assignWaiting();
        } catch (RuntimeException e) {
            throw FinalFailure.markUnchecked(e);
        }
    }

    private void assignWaiting() {
        if (!started) {
            return; // the work of start() is under way: the readers are answered when it is done
        }
        for (Iterator<Integer> it = waiting.iterator(); it.hasNext(); ) {
            int subtask = it.next();
            if (!context.registeredReaders().containsKey(subtask)) {
                it.remove();
                continue;
            }
            ChunkSplit<M> chunk = chunks.nextUnassigned(operations.paused);
            if (chunk == null && chunks.planning()) {
                planChunks();
                return; // the waiting readers are answered when the worker has planned chunks
            }
            if (chunk != null) {
                if (restored) {
                    chunk = redeliveredIfAtLeastOnce(chunk);
                }
                chunks.assigned(chunk);
                context.assignSplit(chunk, subtask);
                it.remove();
            } else if (chunks.reading()) {
                return; // the last chunks are being read: the stream waits for their marks
            } else if (chunks.hasUnassigned()) {
                return; // chunks of paused tables are left: the stream waits for them
            } else if (settings.startupMode().streams()) {
                if (streamStatus == EnumeratorState.StreamStatus.NOT_CREATED
                        && !gate.mayStart(context.currentParallelism(), System.nanoTime())) {
                    return; // the snapshot rows of other readers may still be on their way downstream
                }
                if (streamStatus != EnumeratorState.StreamStatus.ASSIGNED) {
                    assignedReturned = returnedStream != null;
                    context.assignSplit(streamSplit(), subtask);
                    streamStatus = EnumeratorState.StreamStatus.ASSIGNED;
                    returnedStream = null;
                    it.remove();
                }
                // other readers stay idle, without splits, for tables added later
            } else {
                context.signalNoMoreSplits(subtask);
                it.remove();
            }
        }
    }

    /** Asks the worker for the next chunks of the table being planned, unless it is at it already. */
    private void planChunks() {
        TablePlan plan = chunks.startPlanning(operations.paused);
        if (plan == null) {
            return;
        }
        // enough for every reader (they tend to ask at once), a few at most, so that one call never takes long
        int count = Math.min(CHUNKS_PER_CALL, Math.max(1, Math.max(waiting.size(), context.currentParallelism())));
        context.callAsync(() -> worker.plan(plan, count), (planned, error) -> {
            if (error != null && !closed) {
                chunks.planningFailed();
            }
            handler(Function.identity(), this::planned).accept(planned, error);
        });
    }

    private void planned(CatalogWorker.PlannedChunks<M> planned) {
        chunks.planned(planned);
        if (!chunks.planning()) {
            // every chunk is planned: the session is closed until added tables need it
            context.callAsync(worker::release, handler(Function.identity(), ignored -> {}));
        }
        assignPending();
    }

    /** With a sink that keeps a failed attempt's records, a chunk read again must leave out no change. */
    private ChunkSplit<M> redeliveredIfAtLeastOnce(ChunkSplit<M> chunk) {
        return atLeastOnce() ? chunk.redelivered() : chunk;
    }

    private StreamSplit<P, M> streamSplit() {
        if (returnedStream != null) {
            return returnedStream;
        }
        List<ChunkSplit<M>> read = chunks.takeFinished();
        List<ChunkSplit<M>> handoff = HandoffChunks.of(connector, read, streamStart);
        LOG.info("All {} chunks are read; the stream starts at {} with {} chunks in its handoff", read.size(),
                streamStart, handoff.size());
        return StreamSplit.of(streamStart, handoff, tables, history.copy());
    }

    /**
     * A handler for work of the worker, run on the coordinator thread: applies the result, or fails
     * the job with the error ({@code failure} may put it in words), marked final when it is. Does
     * nothing once the enumerator is closed.
     */
    private <T> BiConsumer<T, Throwable> handler(Function<Throwable, Throwable> failure, Consumer<T> apply) {
        return (result, error) -> {
            if (closed) {
                return;
            }
            if (error != null) {
                throw FinalFailure.markUnchecked(failure.apply(error));
            }
            try {
                apply.accept(result);
            } catch (RuntimeException e) {
                throw FinalFailure.markUnchecked(e);
            }
        };
    }

    /**
     * The state as it is: work the worker has not finished is not in it (a plan being planned is
     * there as it was), so a restored enumerator does that work again. Never waits on the worker.
     */
    @Override
    public EnumeratorState<P, M> snapshotState(long checkpointId) {
        gate.checkpointTaken(checkpointId);
        return new EnumeratorState<>(initialized, streamStart, history, tables, chunks.plans(), chunks.unassigned(),
                chunks.inFlight(), chunks.finished(), streamStatus, returnedStream, operations.state(checkpointId));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        gate.checkpointCompleted(checkpointId);
        if (controlLoop != null) {
            controlLoop.checkpointCompleted(checkpointId);
        } else {
            operations.checkpointCompleted(checkpointId);
        }
        if (gate.open() && streamStatus == EnumeratorState.StreamStatus.NOT_CREATED) {
            assignPending();
        }
    }

    /** What the snapshot operations ask of, and do to, this enumerator; coordinator thread only. */
    private final class OperationsView implements SnapshotOperations.Snapshot {
        /** Rereads requested in this poll, sent after the flags. */
        private final List<TablePlan> rereadsToSend = new ArrayList<>();

        @Override
        public boolean first() {
            return streamStatus == EnumeratorState.StreamStatus.NOT_CREATED;
        }

        @Override
        public boolean streams() {
            return settings.startupMode().streams();
        }

        @Override
        public boolean captured(TableId table) {
            return tables.contains(table);
        }

        @Override
        public boolean inSnapshot(TableId table) {
            return first() ? chunks.inProgress(table) : added.stream().anyMatch(p -> p.table().equals(table));
        }

        @Override
        public boolean readingChunks(TableId table) {
            return chunks.reading(table);
        }

        @Override
        public Set<TableId> tables() {
            return known;
        }

        @Override
        public int chunksPlanned(TableId table) {
            return chunks.chunksPlanned(table);
        }

        @Override
        public int chunksRead(TableId table) {
            return chunks.chunksRead(table);
        }

        @Override
        public void startNew(TableDiscovery.Found table) {
            accept(List.of(table), false);
        }

        @Override
        public void reread(TablePlan plan) {
            if (streamAnswered()) {
                rereadsToSend.add(plan);
            } // otherwise handed over with the answer to the stream's reader
        }

        @Override
        public void drop(TableId table) {
            if (first()) {
                if (chunks.inProgress(table)) {
                    chunks.drop(table);
                    tables.remove(table); // a table partly read is not captured: its changes would be no changelog
                }
            } else {
                added.removeIf(p -> p.table().equals(table));
                streamPlans.remove(table);
            }
        }

        @Override
        public void changed() {
            refreshKnown();
            if (first()) {
                assignPending();
            } else if (streamAnswered()) {
                context.sendEventToSourceReader(streamOwner, controlEvent());
                if (!rereadsToSend.isEmpty()) {
                    context.sendEventToSourceReader(streamOwner, new TablesRereadEvent(rereadsToSend));
                }
            }
            rereadsToSend.clear();
        }
    }

    /** Closes the catalogue session now, or on the worker thread when the call using it ends. */
    @Override
    public void close() {
        closed = true;
        worker.close();
    }
}
