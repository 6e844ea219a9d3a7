package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.split.TablePlan;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.FinalFailure;
import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.SinkGuarantee;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.history.SchemaChange;
import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.LazySession;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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
 * <p>At the first start it discovers the tables, checks what the snapshot needs and, for a
 * streaming source, prepares the stream (PostgreSQL: slot and publication) before any chunk is
 * read, so the stream's start is no later than any chunk. The stream split is created when every
 * chunk has been read and reported, and carries their marks for the handoff. Runs on the
 * JobManager, on the enumerator's thread.
 */
@Internal
public final class CdcEnumerator<P extends SourcePosition & Comparable<P>, M extends Serializable>
        implements SplitEnumerator<CdcSplit, EnumeratorState<P, M>> {
    private static final Logger LOG = LoggerFactory.getLogger(CdcEnumerator.class);

    private final SplitEnumeratorContext<CdcSplit> context;
    private final CdcConnector<P, M> connector;
    private final SourceSettings settings;

    private boolean initialized;
    @Nullable private P streamStart;
    @Nullable private SchemaHistory history;
    private final Set<TableId> tables = new HashSet<>();
    private final Deque<TablePlan> plans = new ArrayDeque<>();
    private final Deque<ChunkSplit<M>> unassigned = new ArrayDeque<>();
    private final Map<String, ChunkSplit<M>> inFlight = new LinkedHashMap<>();
    private final Map<String, ChunkSplit<M>> finished = new LinkedHashMap<>();
    private EnumeratorState.StreamStatus streamStatus;
    @Nullable private StreamSplit<P, M> returnedStream;

    private final TreeSet<Integer> waiting = new TreeSet<>();
    /** Tables added after the stream split was created, until its reader accepts them. */
    private final List<TablePlan> added = new ArrayList<>();
    private final Map<TableId, Integer> chunksPlanned = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<TableId, Integer> chunksRead = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<TableId, TableDescription> descriptions = new HashMap<>();
    private final LazySession<P, M> session;
    private final StreamGate gate = new StreamGate();
    private final TableDiscovery<P, M> discovery;
    /**
     * Whether chunks handed out now may have been emitted already by an attempt that failed: after
     * a restore, chunk boundaries and assignments since the checkpoint are lost.
     */
    private final boolean restored;
    /** The subtask reading the stream split; -1 while none does. */
    private int streamOwner = -1;
    /** The captured and added tables, for discovery on a worker thread. */
    private volatile Set<TableId> known = Set.of();

    public CdcEnumerator(SplitEnumeratorContext<CdcSplit> context, CdcConnector<P, M> connector, SourceSettings settings,
            EnumeratorState<P, M> state) {
        this.context = context;
        this.connector = connector;
        this.settings = settings;
        this.session = new LazySession<>(connector);
        this.discovery = new TableDiscovery<>(connector, settings);
        this.initialized = state.initialized;
        this.streamStart = state.streamStart;
        this.history = state.history;
        this.tables.addAll(state.tables);
        this.plans.addAll(state.plans);
        this.unassigned.addAll(state.unassigned);
        state.inFlight.forEach(c -> inFlight.put(c.splitId(), c));
        state.finished.forEach(c -> finished.put(c.splitId(), c));
        this.streamStatus = state.streamStatus;
        this.returnedStream = state.returnedStream;
        this.restored = state.initialized;
        refreshKnown();
    }

    @Override
    public void start() {
        try {
            startDiscovery();
        } catch (RuntimeException e) {
            throw FinalFailure.markUnchecked(e); // the coordinator fails the job with it: once, when final
        }
    }

    private void startDiscovery() {
        if (!initialized) {
            initialize();
        } else if (settings.startupMode().streams()) {
            findAddedTables();
        }
        registerMetrics();
        scheduleDiscovery();
        // opens the stream gate's fallback when no checkpoint comes (see StreamGate)
        context.callAsync(() -> null, (ignored, error) -> {
            if (streamStatus == EnumeratorState.StreamStatus.NOT_CREATED && gate.armed() && !gate.open()
                    && !waiting.isEmpty()) {
                assignPending();
            }
        }, 1_000, 1_000);
    }

    /**
     * Tables the include list matches that are not captured: found after a restore, and while the
     * job runs, every {@code scan.table-discovery.interval}. Before the stream split exists they join
     * the snapshot; after, the stream's reader snapshots them while it streams (each change it
     * passed over before is older than that snapshot, so the snapshot shows it). Tables already
     * captured are never read again.
     */
    private void findAddedTables() {
        accept(discovery.find(known, true));
    }

    /** Takes the tables {@link TableDiscovery#find} found into the snapshot, or hands them to the stream's reader. */
    private void accept(List<TableDiscovery.Found> found) {
        List<TablePlan> forStream = new ArrayList<>();
        List<TableId> names = new ArrayList<>();
        for (TableDiscovery.Found f : found) {
            TableId table = f.plan.table();
            if (tables.contains(table) || added.stream().anyMatch(p -> p.table().equals(table))) {
                continue; // found twice
            }
            names.add(table);
            if (streamStatus == EnumeratorState.StreamStatus.NOT_CREATED) {
                plans.add(f.plan);
                tables.add(table);
                history.recordDdl("shape:" + table.qualifiedName() + ":start",
                        SchemaChange.rowShape(table, f.description.shape(), Instant.now()));
            } else {
                added.add(f.plan);
                forStream.add(f.plan);
            }
        }
        if (names.isEmpty()) {
            return;
        }
        refreshKnown();
        LOG.info("Tables the {} source captures from now on: {}; they are snapshotted {}", connector.name(), names,
                streamStatus == EnumeratorState.StreamStatus.NOT_CREATED ? "with the others" : "while the stream runs");
        if (!forStream.isEmpty() && streamOwner >= 0) {
            context.sendEventToSourceReader(streamOwner, new TablesAddedEvent(forStream));
        } else if (streamStatus == EnumeratorState.StreamStatus.NOT_CREATED) {
            assignPending();
        }
    }

    /**
     * Looks for new tables on a worker thread every interval; a table whose prerequisites are not met
     * is looked at again next time, any other failure fails the job.
     */
    private void scheduleDiscovery() {
        long interval = settings.tableDiscoveryInterval().toMillis();
        if (interval <= 0 || !settings.startupMode().streams()) {
            return;
        }
        context.callAsync(() -> discovery.find(known, false), (found, error) -> {
            if (error != null) {
                throw FinalFailure.markUnchecked(new CdcException(CdcException.Kind.CONNECTION, "Looking for tables "
                        + "of the " + connector.name() + " source created since it started failed: "
                        + error.getMessage(), error));
            }
            try {
                accept(found);
            } catch (RuntimeException e) {
                throw FinalFailure.markUnchecked(e);
            }
        }, interval, interval);
    }

    private void refreshKnown() {
        Set<TableId> all = new HashSet<>(tables);
        added.forEach(p -> all.add(p.table()));
        known = Set.copyOf(all);
    }

    /** Snapshot progress: chunks planned and read, in all and per table, and tables still being planned. */
    private void registerMetrics() {
        var group = context.metricGroup();
        group.gauge("snapshotTablesBeingPlanned", () -> plans.size());
        group.gauge("snapshotChunksInFlight", () -> inFlight.size() + unassigned.size());
        group.gauge("snapshotChunksRead", () -> chunksRead.values().stream().mapToInt(Integer::intValue).sum());
        for (TableId table : tables) {
            var t = group.addGroup("table", table.qualifiedName());
            t.gauge("chunksPlanned", () -> chunksPlanned.getOrDefault(table, 0));
            t.gauge("chunksRead", () -> chunksRead.getOrDefault(table, 0));
            t.gauge("planningComplete", () -> plans.stream().noneMatch(p -> p.table().equals(table)) ? 1 : 0);
        }
    }

    private void initialize() {
        StartupMode mode = settings.startupMode();
        try (CatalogSession<P, M> s = connector.openSession()) {
            List<TableId> discovered = s.discoverTables(settings.filter());
            for (String entry : settings.filter().unqualifiedIncludes()) {
                LOG.warn("Include entry '{}' names no schema, so it captures that table name in every schema; write "
                        + "'schema.{}' when the schema matters", entry, entry);
            }
            if (discovered.isEmpty()) {
                throw new CdcException(CdcException.Kind.CONFIGURATION, "No table of the " + connector.name()
                        + " source matches " + settings.filter() + "; check the include and exclude lists"
                        + " (and, for PostgreSQL, the tables of the publication)");
            }
            if (mode.snapshots()) {
                s.checkSnapshotPrerequisites(discovered);
            }
            if (mode.streams()) {
                streamStart = s.prepareStream(discovered, settings.fullBeforeImages());
                if (mode.kind() == StartupMode.Kind.LATEST) {
                    P now = s.currentPosition();
                    streamStart = now.compareTo(streamStart) > 0 ? now : streamStart;
                } else if (mode.kind() == StartupMode.Kind.POSITION) {
                    streamStart = connector.parsePosition(mode.position());
                }
            }
            history = new SchemaHistory();
            Instant now = Instant.now();
            for (TableId table : discovered) {
                TableDescription description = s.describe(table);
                descriptions.put(table, description);
                history.recordDdl("shape:" + table.qualifiedName() + ":start",
                        SchemaChange.rowShape(table, description.shape(), now));
                if (mode.snapshots()) {
                    ChunkKey key = ChunkKey.of(description, connector.keyOrder(), settings.chunkKeyColumn(table),
                            CdcSourceOptions.CHUNK_KEY_COLUMNS.key());
                    plans.add(TablePlan.start(table, key));
                }
            }
            tables.addAll(discovered);
        }
        refreshKnown();
        streamStatus = EnumeratorState.StreamStatus.NOT_CREATED;
        initialized = true;
        LOG.info("The {} source captures {} tables ({}), startup mode {}{}", connector.name(), tables.size(), tables,
                mode, streamStart == null ? "" : ", stream from " + streamStart);
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
            if (split.isStream()) {
                streamOwner = -1;
                returnedStream = (StreamSplit<P, M>) split;
                streamStatus = EnumeratorState.StreamStatus.RETURNED;
            } else {
                ChunkSplit<M> chunk = (ChunkSplit<M>) split;
                inFlight.remove(chunk.splitId());
                if (chunk.mark() == null) {
                    unassigned.addFirst(redeliveredIfAtLeastOnce(chunk));
                } else {
                    finished.put(chunk.splitId(), chunk);
                }
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
        if (event instanceof ChunksFinishedEvent) {
            List<String> ids = new ArrayList<>();
            for (ChunkSplit<M> chunk : ((ChunksFinishedEvent<M>) event).chunks()) {
                if (inFlight.remove(chunk.splitId()) != null) {
                    chunksRead.merge(chunk.table(), 1, Integer::sum);
                }
                finished.put(chunk.splitId(), chunk);
                ids.add(chunk.splitId());
            }
            context.sendEventToSourceReader(subtaskId, new ChunksAcknowledgedEvent(ids));
            assignPending();
        } else if (event instanceof StreamOwnerEvent) {
            streamOwner = subtaskId;
            if (!added.isEmpty()) {
                context.sendEventToSourceReader(subtaskId, new TablesAddedEvent(added));
            }
        } else if (event instanceof TablesAcceptedEvent) {
            List<TableId> accepted = ((TablesAcceptedEvent) event).tables();
            tables.addAll(accepted);
            added.removeIf(p -> accepted.contains(p.table()));
            refreshKnown();
        } else {
            LOG.warn("Ignored an unknown event from subtask {}: {}", subtaskId, event);
        }
    }

    /** Plans chunks as needed (reading the database) and hands them out; a final failure is marked so. */
    private void assignPending() {
        try {
            assignWaiting();
        } catch (RuntimeException e) {
            throw FinalFailure.markUnchecked(e);
        }
    }

    private void assignWaiting() {
        for (Iterator<Integer> it = waiting.iterator(); it.hasNext(); ) {
            int subtask = it.next();
            if (!context.registeredReaders().containsKey(subtask)) {
                it.remove();
                continue;
            }
            ChunkSplit<M> chunk = nextChunk();
            if (chunk != null && restored) {
                chunk = redeliveredIfAtLeastOnce(chunk);
            }
            if (chunk != null) {
                inFlight.put(chunk.splitId(), chunk);
                context.assignSplit(chunk, subtask);
                it.remove();
            } else if (!inFlight.isEmpty()) {
                return; // the last chunks are being read: the stream waits for their marks
            } else if (settings.startupMode().streams()) {
                if (streamStatus == EnumeratorState.StreamStatus.NOT_CREATED && !streamMayStart()) {
                    return; // the snapshot rows of other readers may still be on their way downstream
                }
                if (streamStatus != EnumeratorState.StreamStatus.ASSIGNED) {
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

    /** With a sink that keeps a failed attempt's records, a chunk read again must leave out no change. */
    private ChunkSplit<M> redeliveredIfAtLeastOnce(ChunkSplit<M> chunk) {
        return settings.sinkGuarantee() == SinkGuarantee.AT_LEAST_ONCE ? chunk.redelivered() : chunk;
    }

    private boolean streamMayStart() {
        if (context.currentParallelism() == 1 || gate.open()) {
            return true;
        }
        long now = System.nanoTime();
        gate.arm(now);
        if (gate.fallbackDue(now)) {
            LOG.warn("No checkpoint completed within {} s of the last snapshot chunk, so the stream starts now. "
                    + "Without a completed checkpoint between them, a change may reach operators downstream before "
                    + "the snapshot row it changes when they were read by different subtasks: enable checkpointing "
                    + "(an interval of a few seconds) for an exact handoff.", StreamGate.FALLBACK_NANOS / 1_000_000_000L);
            return true;
        }
        return false;
    }

    @Nullable
    private ChunkSplit<M> nextChunk() {
        if (!unassigned.isEmpty()) {
            return unassigned.poll();
        }
        TablePlan plan = plans.poll();
        if (plan == null) {
            session.close();
            return null;
        }
        Object[] upTo = null;
        if (plan.key().splittable()) {
            CatalogSession<P, M> s = session.get();
            upTo = s.nextChunkEnd(description(plan.table()), plan.key().columns(), plan.nextAfter(), settings.chunkSize());
        }
        if (upTo != null) {
            plans.addFirst(plan.after(upTo));
        }
        chunksPlanned.merge(plan.table(), 1, Integer::sum);
        return plan.chunk(upTo);
    }

    private StreamSplit<P, M> streamSplit() {
        if (returnedStream != null) {
            return returnedStream;
        }
        List<ChunkSplit<M>> handoff = new ArrayList<>();
        for (ChunkSplit<M> chunk : finished.values()) {
            if (connector.handoffEnd(chunk.mark()).compareTo(streamStart) > 0) {
                handoff.add(chunk);
            }
        }
        LOG.info("All {} chunks are read; the stream starts at {} with {} chunks in its handoff", finished.size(),
                streamStart, handoff.size());
        StreamSplit<P, M> split = StreamSplit.of(streamStart, handoff, tables, history.copy());
        finished.clear();
        return split;
    }

    private TableDescription description(TableId table) {
        return descriptions.computeIfAbsent(table, t -> session.get().describe(t));
    }

    @Override
    public EnumeratorState<P, M> snapshotState(long checkpointId) {
        gate.checkpointTaken(checkpointId);
        return new EnumeratorState<>(initialized, streamStart, history, tables, new ArrayList<>(plans),
                new ArrayList<>(unassigned), new ArrayList<>(inFlight.values()), new ArrayList<>(finished.values()),
                streamStatus, returnedStream);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        gate.checkpointCompleted(checkpointId);
        if (gate.open() && streamStatus == EnumeratorState.StreamStatus.NOT_CREATED) {
            assignPending();
        }
    }

    @Override
    public void close() {
        session.close();
    }
}
