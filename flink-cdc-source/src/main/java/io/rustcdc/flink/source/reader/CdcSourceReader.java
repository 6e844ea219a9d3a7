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
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.ChangeStream;
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
 * Reads the splits assigned to one subtask. Chunks are read whole by the {@link ReaderWorker} and
 * emitted within one call of {@link #pollNext}, so no checkpoint splits a chunk; a finished chunk
 * stays in this reader's state until the enumerator acknowledges it. Stream records are emitted one
 * by one, each moving the checkpointed position exactly past itself; the handoff and the schema
 * history are applied here, at emission, so they always match that position. A position is
 * confirmed to the database only when a checkpoint holding it completes, and only for the n-th
 * newest completed checkpoint.
 */
@Internal
public final class CdcSourceReader<T, P extends SourcePosition & Comparable<P>, M extends Serializable>
        implements SourceReader<T, CdcSplit> {
    private static final Logger LOG = LoggerFactory.getLogger(CdcSourceReader.class);
    private static final int QUEUE_CAPACITY = 8;
    private static final long NO_TIMESTAMP = Long.MIN_VALUE;

    private final SourceReaderContext context;
    private final CdcConnector<P, M> connector;
    private final SourceSettings settings;
    private final ChangeEventDeserializer<T> deserializer;
    private final RecordQueue queue = new RecordQueue(QUEUE_CAPACITY);
    private final ReaderWorker<P, M> worker;
    private final OutputCollector<T> collector = new OutputCollector<>();

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
            if (split.isStream()) {
                StreamSplit<P, M> s = (StreamSplit<P, M>) split;
                // a table whose snapshot was under way may have had chunks emitted by the attempt that failed
                boolean redelivering = settings.sinkGuarantee() == SinkGuarantee.AT_LEAST_ONCE;
                stream = new StreamState<>(s, new Handoff<>(connector, s.handoff(), s.adding(), redelivering),
                        new ShapeRecorder(s.history().copy()));
                LOG.info("Subtask {} streams: {}", context.getIndexOfSubtask(), s);
                worker.stream(s.position(), settings.filter(), s.tables());
                s.adding().forEach(worker::addTable);
                context.sendSourceEventToCoordinator(new StreamOwnerEvent());
            } else {
                ChunkSplit<M> chunk = (ChunkSplit<M>) split;
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
        Object item = queue.poll();
        if (item == null) {
            boolean done = noMoreSplits && pendingChunks.isEmpty() && stream == null && queue.isEmpty();
            return done ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
        }
        collector.output = output;
        if (item instanceof ChunkResult && ((ChunkResult<M>) item).inline) {
            emitAddedChunk((ChunkResult<M>) item);
        } else if (item instanceof ChunkResult) {
            emitChunk((ChunkResult<M>) item);
        } else {
            emitStream((List<StreamRecord<P>>) item);
        }
        return InputStatus.MORE_AVAILABLE;
    }

    private void emitChunk(ChunkResult<M> result) throws Exception {
        collector.timestamp = NO_TIMESTAMP;
        for (ChangeEvent row : result.rows) {
            deserializer.deserialize(row, collector);
        }
        chunksRead.inc();
        ChunkSplit<M> chunk = result.chunk;
        // Flink keeps an output and metric group per split until it is released; thousands of chunks add up
        collector.output.releaseOutputForSplit(chunk.splitId());
        pendingChunks.remove(chunk.splitId());
        unacknowledged.put(chunk.splitId(), chunk);
        context.sendSourceEventToCoordinator(new ChunksFinishedEvent<>(List.of(chunk)));
        if (pendingChunks.isEmpty()) {
            context.sendSplitRequest();
        }
    }

    /** A chunk of a table added while the stream runs: its rows, then its place in the handoff. */
    private void emitAddedChunk(ChunkResult<M> result) throws Exception {
        StreamState<P, M> s = stream;
        collector.timestamp = NO_TIMESTAMP;
        for (ChangeEvent row : result.rows) {
            s.recorder.record(row, s.position);
            deserializer.deserialize(row, collector);
        }
        chunksRead.inc();
        ChunkSplit<M> chunk = result.chunk;
        boolean last = chunk.upTo() == null;
        s.handoff.addChunk(chunk, last);
        TablePlan plan = s.adding.get(chunk.table());
        if (last) {
            s.adding.remove(chunk.table());
            s.tables.add(chunk.table());
            LOG.info("Table {}, added after the stream started, is snapshotted and captured", chunk.table());
        } else {
            s.adding.put(chunk.table(), plan.after(chunk.upTo()));
        }
    }

    private void emitStream(List<StreamRecord<P>> batch) throws Exception {
        StreamState<P, M> s = stream;
        for (StreamRecord<P> record : batch) {
            ChangeEvent event = record.event();
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
        }
    }

    @Override
    public List<CdcSplit> snapshotState(long checkpointId) {
        List<CdcSplit> state = new ArrayList<>(pendingChunks.values());
        state.addAll(unacknowledged.values());
        StreamState<P, M> s = stream;
        if (s != null) {
            state.add(StreamSplit.of(s.position, s.handoff.remaining(), s.tables, s.recorder.history().copy(),
                    new ArrayList<>(s.adding.values())));
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
        } else if (event instanceof TablesAddedEvent && stream != null) {
            List<TableId> accepted = new ArrayList<>();
            for (TablePlan plan : ((TablesAddedEvent) event).tables()) {
                if (!stream.tables.contains(plan.table()) && !stream.adding.containsKey(plan.table())) {
                    stream.adding.put(plan.table(), plan);
                    stream.handoff.startTable(plan.table(), plan.key());
                    worker.addTable(plan);
                    LOG.info("Snapshotting table {}, added after the stream started, while streaming", plan.table());
                }
                accepted.add(plan.table());
            }
            context.sendSourceEventToCoordinator(new TablesAcceptedEvent(accepted));
        }
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        queue.signal();
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        if (worker.failure() != null || (noMoreSplits && pendingChunks.isEmpty() && stream == null)) {
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
        P position;

        StreamState(StreamSplit<P, M> split, Handoff<P, M> handoff, ShapeRecorder recorder) {
            this.handoff = handoff;
            this.recorder = recorder;
            this.tables = new java.util.HashSet<>(split.tables());
            split.adding().forEach(p -> adding.put(p.table(), p));
            this.position = split.position();
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
