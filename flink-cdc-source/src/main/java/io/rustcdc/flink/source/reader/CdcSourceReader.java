package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.FinalFailure;
import io.rustcdc.flink.source.SinkGuarantee;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.enumerator.ChunksAcknowledgedEvent;
import io.rustcdc.flink.source.enumerator.ChunksFinishedEvent;
import io.rustcdc.flink.source.enumerator.StreamOwnerEvent;
import io.rustcdc.flink.source.enumerator.TablesAcceptedEvent;
import io.rustcdc.flink.source.enumerator.TablesAddedEvent;
import io.rustcdc.flink.source.enumerator.SnapshotControlEvent;
import io.rustcdc.flink.source.enumerator.StreamChunkReadEvent;
import io.rustcdc.flink.source.enumerator.TablesRereadEvent;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.EmittedShapes;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import io.rustcdc.flink.source.split.TablePlan;
import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the splits assigned to one subtask. A chunk's rows are emitted as the {@link ReaderWorker}
 * reads them, at most {@link ReaderWorker#MAX_ROWS_HELD} rows held at a time, and one call of
 * {@link #pollNext} emits a whole chunk: it returns only after the chunk's end, so no checkpoint
 * falls inside a chunk (a checkpoint holds a chunk either unread or read with its mark; see
 * docs/architecture.md, "Reading a chunk"). A finished chunk stays in this reader's state until the
 * enumerator acknowledges it. Stream records are emitted one by one, each moving the checkpointed
 * position exactly past itself; the handoff and the schema history are applied here, at emission,
 * so they always match that position. Under {@code scan.transaction-boundaries = preserve} one call
 * emits stream records up to a transaction's end ({@link TransactionCut}), so that no checkpoint
 * falls inside a transaction. A position is confirmed to the database only when a
 * checkpoint holding it completes, and only for the n-th newest completed checkpoint.
 */
@Internal
public final class CdcSourceReader<T, P extends SourcePosition & Comparable<P>, M extends Serializable>
        implements SourceReader<T, CdcSplit> {
    private static final Logger LOG = LoggerFactory.getLogger(CdcSourceReader.class);
    private static final long NO_TIMESTAMP = Long.MIN_VALUE;
    /** How long the task thread waits for the next rows of a chunk before it looks for a failure of the worker. */
    private static final java.time.Duration ROWS_WAIT = java.time.Duration.ofMillis(100);

    private final SourceReaderContext context;
    private final CdcConnector<P, M> connector;
    private final SourceSettings settings;
    private final ChangeEventDeserializer<T> deserializer;
    private final RecordQueue queue = new RecordQueue(ReaderWorker.QUEUE_CAPACITY);
    private final ReaderWorker<P, M> worker;
    private final OutputCollector<T> collector = new OutputCollector<>();
    private final TransactionCut cut;
    /** Stream records of a batch not emitted yet: the call that took the batch cut a transaction over the bound. */
    private List<StreamRecord<P>> rest = List.of();

    private final Map<String, ChunkSplit<M>> pendingChunks = new LinkedHashMap<>();
    private final Map<String, ChunkSplit<M>> unacknowledged = new LinkedHashMap<>();
    @Nullable private StreamState<P, M> stream;
    private boolean noMoreSplits;
    /** Splits added before {@link #start} come from this reader's restored state. */
    private boolean started;
    private final org.apache.flink.metrics.Counter chunksRead;

    private final TreeMap<Long, P> checkpointPositions = new TreeMap<>();
    private final Deque<P> completedPositions = new ArrayDeque<>();

    public CdcSourceReader(SourceReaderContext context, CdcConnector<P, M> connector, SourceSettings settings,
            ChangeEventDeserializer<T> deserializer) {
        this.context = context;
        this.connector = connector;
        this.settings = settings;
        this.deserializer = deserializer;
        this.cut = TransactionCut.of(settings);
        this.worker = new ReaderWorker<>(connector, settings.chunkSize(), queue,
                "rustcdc-" + connector.name() + "-reader-" + context.getIndexOfSubtask(), context.metricGroup());
        this.collector.recordsIn = context.metricGroup().getIOMetricGroup().getNumRecordsInCounter();
        this.chunksRead = context.metricGroup().counter("snapshotChunksEmitted");
        context.metricGroup().gauge("currentFetchEventTimeLag", worker::fetchLagMillis);
    }

    @Override
    public void start() {
        started = true;
        if (pendingChunks.isEmpty() && stream == null) {
            context.sendSplitRequest();
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void addSplits(List<CdcSplit> splits) {
        List<ChunkSplit<M>> restoredFinished = new ArrayList<>();
        for (CdcSplit split : splits) {
            if (split instanceof StreamSplit<?, ?> streamSplit) {
                StreamSplit<P, M> s = (StreamSplit<P, M>) streamSplit;
                // a table whose snapshot was under way may have had chunks emitted by the attempt that failed
                boolean redelivering = settings.sinkGuarantee() == SinkGuarantee.AT_LEAST_ONCE;
                stream = new StreamState<>(s, new Handoff<>(connector, s.handoff(), s.adding(), s.tables(), redelivering),
                        new ShapeRecorder(s.history().copy()));
                LOG.info("Subtask {} holds the stream and waits for the tables added since: {}",
                        context.getIndexOfSubtask(), s);
                // streams once the enumerator has answered: a restored split may lack a table that the attempt
                // which failed had taken, and each of its changes from the split's position on must be kept
                Set<TableId> captured = new java.util.HashSet<>(s.tables());
                s.adding().forEach(p -> captured.add(p.table()));
                context.sendSourceEventToCoordinator(new StreamOwnerEvent(captured, !started));
            } else if (split instanceof ChunkSplit<?> read) {
                ChunkSplit<M> chunk = (ChunkSplit<M>) read;
                if (chunk.mark() != null) {
                    unacknowledged.put(chunk.splitId(), chunk);
                    restoredFinished.add(chunk);
                } else {
                    if (!started && settings.sinkGuarantee() == SinkGuarantee.AT_LEAST_ONCE) {
                        chunk = chunk.redelivered(); // the attempt that failed may have emitted it
                    }
                    pendingChunks.put(chunk.splitId(), chunk);
                    worker.readChunk(chunk);
                }
            }
        }
        if (!restoredFinished.isEmpty()) {
            context.sendSourceEventToCoordinator(new ChunksFinishedEvent<>(restoredFinished));
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        try {
            return poll(output);
        } catch (Exception e) {
            throw FinalFailure.mark(e); // a final failure fails the job once, whatever the restart strategy
        }
    }

    @SuppressWarnings("unchecked")
    private InputStatus poll(ReaderOutput<T> output) throws Exception {
        Throwable failure = worker.failure();
        if (failure != null) {
            throw FinalFailure.mark(failure);
        }
        collector.output = output;
        if (!rest.isEmpty()) {
            emitStream(rest);
            return InputStatus.MORE_AVAILABLE;
        }
        Fetched item = queue.poll();
        if (item == null) {
            boolean done = noMoreSplits && pendingChunks.isEmpty() && stream == null && queue.isEmpty();
            return done ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
        }
        if (item instanceof Fetched.StreamBatch<?> batch) {
            emitStream((List<StreamRecord<P>>) (List<?>) batch.records());
        } else {
            emitChunk(item);
        }
        return InputStatus.MORE_AVAILABLE;
    }

    /**
     * Emits a chunk's rows as they arrive, from {@code first} to the chunk's end, and returns only
     * then: a checkpoint barrier waits for the chunk's end, so no checkpoint holds part of a chunk
     * (its mark is known only at its end). Waits for rows end on an interrupt (a cancellation) or a
     * failure of the worker.
     */
    @SuppressWarnings("unchecked")
    private void emitChunk(Fetched first) throws Exception {
        collector.timestamp = NO_TIMESTAMP;
        Fetched item = first;
        while (item instanceof Fetched.ChunkRows rows) {
            for (ChangeEvent row : rows.rows()) {
                if (rows.inline()) {
                    stream.recorder.record(row, stream.position);
                }
                deserializer.deserialize(row, collector);
            }
            item = nextOfChunk();
        }
        Fetched.ChunkEnd<M> end = (Fetched.ChunkEnd<M>) item;
        chunksRead.inc();
        if (end.inline()) {
            finishAddedChunk(end);
        } else {
            finishChunk(end.chunk());
        }
    }

    /** The next item of the chunk being emitted, waiting for the worker to read it. */
    private Fetched nextOfChunk() throws Exception {
        Fetched next = nextItem();
        if (next instanceof Fetched.StreamBatch) {
            throw new IllegalStateException("Stream records arrived inside a snapshot chunk");
        }
        return next;
    }

    /** The next item of the queue, waiting for the worker; an interrupt or a failure of the worker ends the wait. */
    private Fetched nextItem() throws Exception {
        while (true) {
            Throwable failure = worker.failure();
            if (failure != null) {
                throw FinalFailure.mark(failure);
            }
            Fetched next = queue.poll(ROWS_WAIT);
            if (next != null) {
                return next;
            }
        }
    }

    private void finishChunk(ChunkSplit<M> chunk) {
        // Flink keeps an output and metric group per split until it is released; thousands of chunks add up
        collector.output.releaseOutputForSplit(chunk.splitId());
        pendingChunks.remove(chunk.splitId());
        unacknowledged.put(chunk.splitId(), chunk);
        context.sendSourceEventToCoordinator(new ChunksFinishedEvent<>(List.of(chunk)));
        if (pendingChunks.isEmpty()) {
            context.sendSplitRequest();
        }
    }

    /** A chunk of a table added while the stream runs, its rows emitted: its place in the handoff. */
    private void finishAddedChunk(Fetched.ChunkEnd<M> end) {
        StreamState<P, M> s = stream;
        ChunkSplit<M> chunk = end.chunk();
        boolean last = chunk.upTo() == null;
        TablePlan plan = s.adding.get(chunk.table());
        if (plan == null || (end.from() != null && plan != end.from())) {
            // its snapshot was stopped (and maybe requested again) while the chunk was read: its rows went out,
            // which a sink applying the changelog by key takes as a repeat; the chunk has no place in the handoff
            return;
        }
        s.handoff.addChunk(chunk, last);
        context.sendSourceEventToCoordinator(new StreamChunkReadEvent(chunk.table(), last));
        if (last) {
            s.adding.remove(chunk.table());
            s.tables.add(chunk.table());
            LOG.info("Table {}, added after the stream started, is snapshotted and captured", chunk.table());
        } else {
            s.adding.put(chunk.table(), end.next() != null ? end.next() : plan.after(chunk.upTo()));
        }
    }

    /**
     * Emits {@code batch}, and then, while a transaction is open ({@link TransactionCut}), the next
     * items of the queue as they arrive (a chunk of a table being added, which the worker reads between
     * stream batches, is emitted whole among them): the call returns at a point where a checkpoint may
     * fall. A transaction over the bound is cut before the change beyond it; the records from there on
     * wait in {@link #rest} for the next call.
     */
    @SuppressWarnings("unchecked")
    private void emitStream(List<StreamRecord<P>> batch) throws Exception {
        List<StreamRecord<P>> records = batch;
        while (true) {
            for (int i = 0; i < records.size(); i++) {
                if (cut.overBound(records.get(i))) {
                    rest = records.subList(i, records.size());
                    return;
                }
                emitRecord(records.get(i));
            }
            rest = List.of();
            if (cut.atBoundary()) {
                return;
            }
            Fetched next = nextItem();
            if (next instanceof Fetched.StreamBatch<?> more) {
                records = (List<StreamRecord<P>>) (List<?>) more.records();
            } else {
                emitChunk(next);
                records = List.of();
            }
        }
    }

    /** Emits one stream record, moving the position past it. */
    private void emitRecord(StreamRecord<P> record) throws Exception {
        StreamState<P, M> s = stream;
        ChangeEvent event = record.event();
        if (event != null) {
            s.shapes.record(event); // every event the stream returned, as the stream itself saw them
        }
        if (event != null && !s.captures(event)) {
            s.warnIfLeftOut(event);
        } else if (event != null) {
            ChangeEvent decided = s.handoff.decide(event, record.position());
            if (decided != null) {
                s.recorder.record(decided, record.position());
                collector.timestamp = decided.source().commitTime() == null
                        ? NO_TIMESTAMP : decided.source().commitTime().toEpochMilli();
                deserializer.deserialize(decided, collector);
            }
        }
        s.position = record.position();
        s.handoff.advance(s.position);
        cut.take(record);
    }

    @Override
    public List<CdcSplit> snapshotState(long checkpointId) {
        List<CdcSplit> state = new ArrayList<>(pendingChunks.values());
        state.addAll(unacknowledged.values());
        StreamState<P, M> s = stream;
        if (s != null) {
            state.add(StreamSplit.of(s.position, s.handoff.remaining(), s.tables, s.recorder.history().copy(),
                    new ArrayList<>(s.adding.values()), s.shapes.copy()));
            checkpointPositions.put(checkpointId, s.position);
        }
        return state;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        P position = checkpointPositions.remove(checkpointId);
        checkpointPositions.headMap(checkpointId).clear(); // older ones were subsumed
        if (position == null) {
            return;
        }
        completedPositions.addLast(position);
        int retained = settings.checkpointsRetained();
        while (completedPositions.size() > retained) {
            completedPositions.removeFirst();
        }
        ChangeStream<P> open = worker.stream();
        if (completedPositions.size() == retained && open != null) {
            open.confirm(completedPositions.peekFirst());
        }
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {
        if (event instanceof ChunksAcknowledgedEvent) {
            ((ChunksAcknowledgedEvent) event).splitIds().forEach(unacknowledged::remove);
        } else if (event instanceof TablesAddedEvent added && stream != null) {
            addTables(stream, added);
        } else if (event instanceof TablesRereadEvent reread && stream != null) {
            rereadTables(stream, reread);
        } else if (event instanceof SnapshotControlEvent control && stream != null) {
            control(stream, control);
        }
    }

    /**
     * Snapshots captured tables again while streaming (an on-demand request): every change of theirs
     * goes on being emitted while they are read, and their rows go out again (see {@link
     * Handoff#rereadTable}). A table being read already is left as it is.
     */
    private void rereadTables(StreamState<P, M> s, TablesRereadEvent event) {
        List<TableId> reading = new ArrayList<>();
        for (TablePlan plan : event.tables()) {
            if (!s.adding.containsKey(plan.table())) {
                s.adding.put(plan.table(), plan);
                s.handoff.rereadTable(plan.table(), plan.key());
                if (s.streaming) {
                    worker.addTable(plan);
                }
                LOG.info("Snapshotting table {} again while streaming, as requested; its rows are delivered again",
                        plan.table());
            }
            reading.add(plan.table());
        }
        context.sendSourceEventToCoordinator(new TablesAcceptedEvent(reading, reading));
    }

    /** Pauses or stops the snapshots of tables read while streaming, at the next chunk boundary. */
    private void control(StreamState<P, M> s, SnapshotControlEvent event) {
        worker.control(event.paused(), event.stopped());
        for (TableId t : event.stopped()) {
            if (s.adding.remove(t) != null) {
                s.handoff.dropTable(t);
                LOG.info("The snapshot of table {} is stopped; {}", t, s.tables.contains(t)
                        ? "its changes go on being captured" : "it is not captured");
            }
        }
    }

    /** Takes added tables into the stream's state; the first such event starts the stream. */
    private void addTables(StreamState<P, M> s, TablesAddedEvent event) {
        List<TableId> accepted = new ArrayList<>();
        List<TablePlan> toRead = new ArrayList<>();
        for (TablePlan plan : event.tables()) {
            if (!s.tables.contains(plan.table()) && !s.adding.containsKey(plan.table())) {
                s.adding.put(plan.table(), plan);
                s.handoff.startTable(plan.table(), plan.key(), event.redelivered());
                toRead.add(plan);
                LOG.info("Snapshotting table {}, added after the stream started, while streaming{}", plan.table(),
                        event.redelivered() ? " (an attempt that failed may have emitted some of it)" : "");
            }
            accepted.add(plan.table());
        }
        if (!s.streaming) {
            s.streaming = true;
            LOG.info("Subtask {} streams from {}", context.getIndexOfSubtask(), s.position);
            worker.stream(s.position, settings.filter(), s.tables, s.shapes.copy());
            toRead = new ArrayList<>(s.adding.values());
        }
        toRead.forEach(worker::addTable);
        if (!accepted.isEmpty() || !toRead.isEmpty()) {
            context.sendSourceEventToCoordinator(new TablesAcceptedEvent(accepted,
                    toRead.stream().map(TablePlan::table).toList()));
        }
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        queue.signal();
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        if (worker.failure() != null || !rest.isEmpty()
                || (noMoreSplits && pendingChunks.isEmpty() && stream == null)) {
            return CompletableFuture.completedFuture(null);
        }
        return queue.available();
    }

    @Override
    public void close() {
        worker.close();
    }

    /** The stream split as this reader advances it. */
    private static final class StreamState<P extends SourcePosition & Comparable<P>, M extends Serializable> {
        final Handoff<P, M> handoff;
        final ShapeRecorder recorder;
        final Set<TableId> tables;
        final Map<TableId, TablePlan> adding = new LinkedHashMap<>();
        final Set<TableId> leftOut = new java.util.HashSet<>();
        /** What the stream's events said of each table's shape up to {@link #position}. */
        final EmittedShapes shapes;
        P position;
        /** Whether the worker streams: only once the enumerator has answered (see {@link StreamOwnerEvent}). */
        boolean streaming;

        StreamState(StreamSplit<P, M> split, Handoff<P, M> handoff, ShapeRecorder recorder) {
            this.handoff = handoff;
            this.recorder = recorder;
            this.tables = new java.util.HashSet<>(split.tables());
            split.adding().forEach(p -> adding.put(p.table(), p));
            this.position = split.position();
            this.shapes = split.shapes().copy();
        }

        /**
         * Events of tables the snapshot covered or is covering, and of tables of no schema (logical
         * messages). A table matching the include list that no snapshot covered is left out: its
         * changes alone would not be a changelog.
         */
        boolean captures(ChangeEvent event) {
            return event.op() == Op.MESSAGE || tables.contains(event.table()) || adding.containsKey(event.table());
        }

        /** Says once per table that a change of a table not captured yet was left out, and why. */
        void warnIfLeftOut(ChangeEvent event) {
            if (event.op() != Op.SCHEMA_CHANGE && leftOut.add(event.table())) {
                LOG.warn("A change of table {}, which the include list matches but which is not captured yet, was left "
                        + "out; the source snapshots it once it finds the table (see 'scan.table-discovery.interval'), "
                        + "and that snapshot holds every change left out before", event.table());
            }
        }
    }

    /**
     * Hands deserialized records to the current {@link ReaderOutput}, stamped with their commit time
     * where known (so Flink reports the emit lag), and counts them.
     */
    private static final class OutputCollector<T> implements Collector<T> {
        ReaderOutput<T> output;
        org.apache.flink.metrics.Counter recordsIn;
        long timestamp = NO_TIMESTAMP;

        @Override
        public void collect(T record) {
            recordsIn.inc();
            if (timestamp == NO_TIMESTAMP) {
                output.collect(record);
            } else {
                output.collect(record, timestamp);
            }
        }

        @Override
        public void close() {}
    }
}
