package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.FinalFailure;
import io.rustcdc.flink.source.SinkGuarantee;
import io.rustcdc.flink.source.RowFilterFailures;
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
import java.util.List;
import java.util.Set;
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
 * <p>The stream split is created when every chunk has been read and reported, every reader is
 * registered, and the {@link StreamGate} lets it; it carries the chunks' marks for the handoff. The
 * read chunks are kept until a completed checkpoint holds the split: a reader failed over before that
 * hands the split back, and it is made again (see {@link StreamOwner}).
 *
 * <p>Its parts: {@link SnapshotChunks} (the chunks), {@link StreamOwner} (the stream split, its
 * reader and the tables added while it streams), {@link SplitRequests} (what a reader that asks
 * gets), {@link WorkerCalls} (the calls of the {@link CatalogWorker} and their handlers) and {@link
 * OperationsView} (what the snapshot control's operations see); this class owns the captured tables
 * and the schema history, and answers Flink.
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
    private final WorkerCalls<P, M> calls;
    private final SnapshotChunks<M> chunks;
    private final StreamOwner<P, M> stream;
    private final SplitRequests<P, M> requests;
    private final StartGate startGate;

    private boolean initialized;
    @Nullable private P streamStart;
    @Nullable private SchemaHistory history;
    private final Set<TableId> tables = new HashSet<>();
    /** Whether the work of {@link #start} is done: until then no split is handed out. */
    private boolean started;
    /** The captured and added tables, for discovery on the worker thread. */
    private volatile Set<TableId> known = Set.of();
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
        this.connector = connector;
        this.settings = settings;
        this.chunks = new SnapshotChunks<>(state, connector::tableIdentity);
        this.stream = new StreamOwner<>(context, atLeastOnce(), state.streamStatus, state.returnedStream);
        this.operations = new SnapshotOperations(new OperationsView<>(chunks, stream, tables,
                settings.startupMode().streams(), () -> known, table -> accept(List.of(table), false),
                this::controlChanged, settings::rowFilter), state.control);
        CatalogWorker<P, M> worker = new CatalogWorker<>(connector, settings);
        this.calls = new WorkerCalls<>(context, worker, connector.name());
        this.controlLoop = control == null ? null : new ControlLoop(context, control, worker, operations,
                () -> known, connector.name(), calls::closed);
        // after a restore, chunks handed out may have been emitted by the attempt that failed; before the first
        // start is in a completed checkpoint, nothing goes out that such a sink would keep (see StartGate)
        this.startGate = new StartGate(!state.initialized && atLeastOnce());
        this.requests = new SplitRequests<>(context, chunks, stream, settings.startupMode().streams(),
                state.initialized && atLeastOnce(), startGate);
        this.initialized = state.initialized;
        this.streamStart = state.streamStart;
        // the configured retention applies to a restored history
        this.history = state.history == null ? null : state.history.copy(settings.schemaHistoryRetention());
        this.tables.addAll(state.tables);
        refreshKnown();
        if (state.initialized) {
            operations.restoredFiltersDiffering(settings::rowFilterOrigin).forEach(LOG::warn);
        }
    }

    /**
     * Starts the first start's work (see {@link FirstStart}) or, after a restore of a streaming source,
     * the search for tables added since, on the worker thread; returns at once.
     */
    @Override
    public void start() {
        if (!initialized) {
            calls.firstStart(this::firstStarted);
        } else if (settings.startupMode().streams()) {
            // tables the include list matches that are not captured: they join the snapshot, or the stream's reader
            // snapshots them while it streams; tables already captured are never read again
            calls.discover(() -> known, found -> {
                accept(found, true);
                started();
            });
        } else {
            started();
        }
        // opens the stream gate's fallback when no checkpoint comes (see StreamGate)
        context.callAsync(() -> null, (ignored, error) -> {
            if (!calls.closed() && started && stream.notCreated() && requests.waitOnGate()) {
                assignPending();
            }
        }, 1_000, 1_000);
    }

    private void firstStarted(FirstStart.Result<P> found) {
        history = found.history(Instant.now(), settings.schemaHistoryRetention());
        streamStart = found.streamStart();
        tables.addAll(found.tables());
        chunks.addPlans(found.plans());
        found.plans().forEach(operations::snapshotStarted);
        refreshKnown();
        initialized = true;
        startGate.arm(System.nanoTime());
        LOG.info("The {} source captures {} tables ({}), startup mode {}{}", connector.name(), tables.size(), tables,
                settings.startupMode(), streamStart == null ? "" : ", stream from " + streamStart);
        started();
    }

    private void started() {
        started = true;
        chunks.registerMetrics(context.metricGroup(), tables);
        if (stream.awaitsAnswer()) {
            stream.answer(operations);
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
        calls.discoverEvery(interval, () -> known, found -> accept(found, false));
    }

    /**
     * Takes the tables {@link TableDiscovery#find} found into the snapshot, or hands them to the stream's
     * reader; {@code afterRestore}: found by the search after a restore, so the attempt that failed may
     * have been snapshotting them.
     */
    private void accept(List<TableDiscovery.Found> found, boolean afterRestore) {
        List<TablePlan> forStream = new ArrayList<>();
        List<TableId> names = new ArrayList<>();
        boolean snapshotting = stream.notCreated();
        for (TableDiscovery.Found f : found) {
            TableId table = f.plan.table();
            if (tables.contains(table) || stream.adding(table)) {
                continue; // found twice
            }
            chunks.undrop(table);
            names.add(table);
            operations.snapshotStarted(f.plan);
            if (snapshotting) {
                chunks.addPlans(List.of(f.plan));
                tables.add(table);
                history.recordDdl("shape:" + table.qualifiedName() + ":start",
                        SchemaChange.rowShape(table, f.description.shape(), Instant.now()));
            } else {
                stream.add(f.plan);
                forStream.add(f.plan);
            }
        }
        if (names.isEmpty()) {
            return;
        }
        refreshKnown();
        LOG.info("Tables the {} source captures from now on: {}; they are snapshotted {}", connector.name(), names,
                snapshotting ? "with the others" : "while the stream runs");
        if (snapshotting) {
            assignPending();
        } else {
            stream.hand(forStream, afterRestore && atLeastOnce());
        }
    }

    private void refreshKnown() {
        Set<TableId> all = new HashSet<>(tables);
        stream.added().forEach(p -> all.add(p.table()));
        all.addAll(operations.stopped); // a stopped table is taken in again only when it is requested
        known = Set.copyOf(all);
    }

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
        requests.add(subtaskId);
        assignPending();
    }

    @Override
    @SuppressWarnings("unchecked")
    public void addSplitsBack(List<CdcSplit> splits, int subtaskId) {
        requests.forget(subtaskId);
        for (CdcSplit split : splits) {
            if (split instanceof StreamSplit<?, ?> returned) {
                if (stream.handedBack((StreamSplit<P, M>) returned, tables)) {
                    requests.resetGate();
                    refreshKnown();
                    LOG.info("Subtask {} failed over to a checkpoint taken before the stream split was created: the "
                            + "split is dropped, and made again once the chunks read since that checkpoint are read "
                            + "again", subtaskId);
                }
            } else if (split instanceof ChunkSplit<?> returned) {
                ChunkSplit<M> chunk = (ChunkSplit<M>) returned;
                chunks.returned(chunk, redeliveredIfAtLeastOnce(chunk));
            }
        }
        if (!splits.isEmpty()) {
            LOG.info("Subtask {} failed over: the {} splits assigned to it since its checkpoint came back", subtaskId,
                    splits.size());
        }
    }

    /** Readers ask for splits themselves; the stream split waits until every reader is registered. */
    @Override
    public void addReader(int subtaskId) {
        assignPending();
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
            requests.resetGate();
            assignPending();
        } else if (event instanceof ChunksRestoredEvent<?> restored) {
            rereading(subtaskId, ((ChunksRestoredEvent<M>) restored).chunks());
        } else if (event instanceof StreamOwnerEvent owner) {
            // a restored enumerator's search for added tables finds those an attempt since took (start waits)
            stream.ownedBy(subtaskId, owner, tables, operations, started);
        } else if (event instanceof TablesAcceptedEvent accepted) {
            // a table stopped after it was handed to the reader is captured too: the reader may have emitted rows of
            // it before the stop reached it, and then keeps it captured (see EnumeratorEvents); a request of it then
            // reads it again with every change emitted, which is right whether or not the reader captured it
            tables.addAll(accepted.tables());
            stream.accepted(accepted.tables());
            operations.accepted(accepted.reading());
            refreshKnown();
        } else if (event instanceof StreamChunkReadEvent read) {
            operations.chunkRead(read.table(), read.last());
        } else if (event instanceof SnapshotFailedEvent failed) {
            snapshotFailed(failed);
        } else {
            LOG.warn("Ignored an unknown event from subtask {}: {}", subtaskId, event);
        }
    }

    /**
     * A reader restored from a checkpoint reads these chunks again, though it reported them read since:
     * they are read until reported again, with new marks. A stream split made since that checkpoint was
     * dropped when that reader's failure handed it back; one still out there cannot be mended ({@link
     * #unmendable}).
     */
    private void rereading(int subtaskId, List<ChunkSplit<M>> restored) {
        List<ChunkSplit<M>> captured = restored.stream().filter(c -> !chunks.stopped(c.table())).toList();
        if (captured.isEmpty()) {
            return; // their tables' snapshots were stopped
        }
        if (!stream.notCreated()) {
            throw unmendable("Subtask " + subtaskId + " was restored from a checkpoint in which it had not read snapshot "
                    + "chunks " + captured.stream().map(ChunkSplit::splitId).toList());
        }
        captured.forEach(chunks::rereading);
        requests.resetGate();
        LOG.info("Subtask {} reads again {} chunks it had not read at the checkpoint it was restored from",
                subtaskId, captured.size());
    }

    /**
     * A subtask restored from a checkpoint reads snapshot chunks again while a stream split made since streams
     * on a subtask that was not restored with it (in a failover region of its own; possible only when the stream
     * started by the {@link StreamGate}'s fallback, without a completed checkpoint after the last chunk): that
     * stream has emitted changes the chunks read again show. The job fails over as a whole (a global failover
     * restores the enumerator and every reader from the same checkpoint).
     */
    private IllegalStateException unmendable(String what) {
        return new IllegalStateException(what + ", while the stream split made since streams on a subtask that was "
                + "not restored with it. The job fails over as a whole to its last checkpoint, so that the stream "
                + "starts with the positions of those chunks as they are read again. Enable checkpointing, with an "
                + "interval of a few seconds, so that a checkpoint completes between the last chunk and the stream.");
    }

    /** A requested row filter failed on rows of a table the stream's reader snapshots: that snapshot ends. */
    private void snapshotFailed(SnapshotFailedEvent failed) {
        if (!operations.failed(failed.table(), failed.rowFilter(), failed.serverMessage())) {
            LOG.info("The row filter of the snapshot of table {} failed after the snapshot was stopped or requested "
                    + "again; nothing changed: {}", failed.table(), failed.serverMessage());
            return;
        }
        LOG.error(RowFilterFailures.requested(failed.table().qualifiedName(), failed.rowFilter(),
                failed.serverMessage(), controlLoop == null ? "<control path>" : controlLoop.path()));
        operations.applied();
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
        if (!stream.notCreated() && chunks.hasUnassigned()) {
            // handed back by a restored subtask, and not with the stream split (see unmendable)
            throw unmendable("Chunks " + chunks.unassigned().stream().map(ChunkSplit::splitId).toList() + " were "
                    + "handed back by a subtask restored from a checkpoint taken before they were assigned");
        }
        if (requests.assign(operations.paused, this::streamSplit)) {
            planChunks(); // the waiting readers are answered when the worker has planned chunks
        }
    }

    /** Asks the worker for the next chunks of the table being planned, unless it is at it already. */
    private void planChunks() {
        TablePlan plan = chunks.startPlanning(operations.paused);
        if (plan == null) {
            return;
        }
        // enough for every reader (they tend to ask at once), a few at most, so that one call never takes long
        int count = Math.min(CHUNKS_PER_CALL, Math.max(1, Math.max(requests.waiting(), context.currentParallelism())));
        calls.plan(plan, count, chunks::planningFailed, this::planned);
    }

    private void planned(CatalogWorker.PlannedChunks<M> planned) {
        chunks.planned(planned);
        if (!chunks.planning()) {
            calls.release(); // every chunk is planned: the session is closed until added tables need it
        }
        assignPending();
    }

    /** With a sink that keeps a failed attempt's records, a chunk read again must leave out no change. */
    private ChunkSplit<M> redeliveredIfAtLeastOnce(ChunkSplit<M> chunk) {
        return atLeastOnce() ? chunk.redelivered() : chunk;
    }

    /** A new stream split: the read chunks go into its handoff. */
    private StreamSplit<P, M> streamSplit() {
        List<ChunkSplit<M>> read = chunks.finished();
        List<ChunkSplit<M>> handoff = HandoffChunks.of(connector, read, streamStart);
        LOG.info("All {} chunks are read; the stream starts at {} with {} chunks in its handoff", read.size(),
                streamStart, handoff.size());
        return StreamSplit.of(streamStart, handoff, tables, history.copy());
    }

    /**
     * The state as it is: work the worker has not finished is not in it (a plan being planned is
     * there as it was), so a restored enumerator does that work again. Never waits on the worker.
     */
    @Override
    public EnumeratorState<P, M> snapshotState(long checkpointId) {
        requests.checkpointTaken(checkpointId);
        stream.checkpointTaken(checkpointId);
        // once the stream split is made the read chunks stay out of the state (a restore of it finds the split with
        // its reader); in memory they stay until a completed checkpoint holds the split
        return new EnumeratorState<>(initialized, streamStart, history, tables, chunks.plans(), chunks.unassigned(),
                chunks.inFlight(), stream.notCreated() ? chunks.finished() : List.of(), stream.status(),
                stream.returnedSplit(), operations.state(checkpointId));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        boolean gateOpen = requests.checkpointCompleted(checkpointId);
        if (stream.checkpointCompleted(checkpointId)) {
            chunks.forgetFinished();
        }
        if (controlLoop != null) {
            controlLoop.checkpointCompleted(checkpointId);
        } else {
            operations.checkpointCompleted(checkpointId);
        }
        if (gateOpen && stream.notCreated()) {
            assignPending();
        }
    }

    /** The snapshot control's flags changed: chunks may be assigned, or the stream's reader is told. */
    private void controlChanged(List<TablePlan> rereads) {
        refreshKnown();
        if (stream.notCreated()) {
            assignPending();
        } else if (stream.answered()) {
            stream.sendControl(operations, rereads);
        }
    }

    /** Closes the catalogue session now, or on the worker thread when the call using it ends. */
    @Override
    public void close() {
        calls.close();
    }
}
