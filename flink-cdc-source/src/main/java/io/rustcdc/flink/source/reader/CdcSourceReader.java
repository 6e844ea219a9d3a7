package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.FinalFailure;
import io.rustcdc.flink.source.SinkGuarantee;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.enumerator.ChunksAcknowledgedEvent;
import io.rustcdc.flink.source.enumerator.ChunksFinishedEvent;
import io.rustcdc.flink.source.enumerator.ChunksRestoredEvent;
import io.rustcdc.flink.source.enumerator.StreamOwnerEvent;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the splits assigned to one subtask. A chunk's rows are emitted as the {@link ReaderWorker}
 * reads them, at most {@link ReaderWorker#MAX_ROWS_HELD} rows held at a time, and one call of
 * {@link #pollNext} emits a whole chunk ({@link ChunkEmitter}): it returns only after the chunk's
 * end, so no checkpoint falls inside a chunk (a checkpoint holds a chunk either unread or read with
 * its mark; see docs/architecture.md, "Reading a chunk"). A finished chunk stays in this reader's
 * state until the enumerator acknowledges it. Stream records are emitted one by one ({@link
 * StreamEmitter}), each moving the checkpointed position exactly past itself, and under {@code
 * scan.transaction-boundaries = preserve} up to a transaction's end per call. The enumerator's
 * answers about tables added or read again while streaming are applied by {@link EnumeratorEvents}.
 * A position is confirmed to the database only when a checkpoint holding it completes, and only for
 * the n-th newest completed checkpoint ({@link Confirmations}).
 */
@Internal
public final class CdcSourceReader<T, P extends SourcePosition & Comparable<P>, M extends Serializable>
        implements SourceReader<T, CdcSplit> {
    private static final Logger LOG = LoggerFactory.getLogger(CdcSourceReader.class);

    private final SourceReaderContext context;
    private final CdcConnector<P, M> connector;
    private final SourceSettings settings;
    private final RecordQueue queue = new RecordQueue(ReaderWorker.QUEUE_CAPACITY);
    private final ReaderWorker<P, M> worker;
    private final FetchedItems items;
    private final OutputCollector<T> collector;
    private final ChunkEmitter<T, P, M> chunks;
    private final StreamEmitter<T, P, M> streamEmitter;
    private final EnumeratorEvents<P, M> events;
    private final Confirmations<P> confirmations;

    @Nullable private StreamState<P, M> stream;
    private boolean noMoreSplits;
    /** Splits added before {@link #start} come from this reader's restored state. */
    private boolean started;

    public CdcSourceReader(SourceReaderContext context, CdcConnector<P, M> connector, SourceSettings settings,
            ChangeEventDeserializer<T> deserializer) {
        this.context = context;
        this.connector = connector;
        this.settings = settings;
        this.worker = new ReaderWorker<>(connector, settings, queue,
                "rustcdc-" + connector.name() + "-reader-" + context.getIndexOfSubtask(), context.metricGroup());
        this.items = new FetchedItems(queue, worker);
        this.collector = new OutputCollector<>(context.metricGroup().getIOMetricGroup().getNumRecordsInCounter());
        this.chunks = new ChunkEmitter<>(context, deserializer, collector, items);
        this.streamEmitter = new StreamEmitter<>(deserializer, collector, items, chunks, TransactionCut.of(settings));
        this.events = new EnumeratorEvents<>(context, settings, worker);
        this.confirmations = new Confirmations<>(settings.checkpointsRetained());
        context.metricGroup().gauge("currentFetchEventTimeLag", worker::fetchLagMillis);
    }

    @Override
    public void start() {
        started = true;
        if (chunks.nonePending() && stream == null) {
            context.sendSplitRequest();
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void addSplits(List<CdcSplit> splits) {
        List<ChunkSplit<M>> restoredFinished = new ArrayList<>();
        List<ChunkSplit<M>> restoredUnread = new ArrayList<>();
        for (CdcSplit split : splits) {
            if (split instanceof StreamSplit<?, ?> streamSplit) {
                StreamSplit<P, M> s = (StreamSplit<P, M>) streamSplit;
                // a table whose snapshot was under way may have had chunks emitted by the attempt that failed
                boolean redelivering = settings.sinkGuarantee() == SinkGuarantee.AT_LEAST_ONCE;
                stream = new StreamState<>(s, new Handoff<>(connector, s.handoff(), s.adding(), s.tables(), redelivering),
                        new ShapeRecorder(s.history().copy(settings.schemaHistoryRetention())));
                LOG.info("Subtask {} holds the stream and waits for the tables added since: {}",
                        context.getIndexOfSubtask(), s);
                // streams once the enumerator has answered: a restored split may lack a table that the attempt
                // which failed had taken, and each of its changes from the split's position on must be kept
                Set<TableId> captured = new HashSet<>(s.tables());
                s.adding().forEach(p -> captured.add(p.table()));
                context.sendSourceEventToCoordinator(new StreamOwnerEvent(captured, !started));
            } else if (split instanceof ChunkSplit<?> read) {
                ChunkSplit<M> chunk = (ChunkSplit<M>) read;
                if (chunk.mark() != null) {
                    chunks.addFinished(chunk);
                    restoredFinished.add(chunk);
                } else {
                    if (!started) {
                        restoredUnread.add(chunk);
                        if (settings.sinkGuarantee() == SinkGuarantee.AT_LEAST_ONCE) {
                            chunk = chunk.redelivered(); // the attempt that failed may have emitted it
                        }
                    }
                    chunks.add(chunk);
                    worker.readChunk(chunk);
                }
            }
        }
        if (!restoredUnread.isEmpty()) {
            // the enumerator may have had them reported read by the attempt that failed: they are read again
            context.sendSourceEventToCoordinator(new ChunksRestoredEvent<>(restoredUnread));
        }
        if (!restoredFinished.isEmpty()) {
            context.sendSourceEventToCoordinator(new ChunksFinishedEvent<>(restoredFinished));
        }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        try {
            return poll(output);
        } catch (Exception e) {
            throw FinalFailure.mark(e); // a final failure fails the job once, whatever the restart strategy
        }
    }

    @SuppressWarnings("unchecked")
    private InputStatus poll(ReaderOutput<T> output) throws Exception {
        items.throwIfFailed();
        collector.output(output);
        if (streamEmitter.hasRest()) {
            streamEmitter.emitRest(stream);
            return InputStatus.MORE_AVAILABLE;
        }
        Fetched item = items.poll();
        if (item == null) {
            boolean done = noMoreSplits && chunks.nonePending() && stream == null && queue.isEmpty();
            return done ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
        }
        if (item instanceof Fetched.StreamBatch<?> batch) {
            streamEmitter.emit((List<StreamRecord<P>>) (List<?>) batch.records(), stream);
        } else {
            chunks.emit(item, stream);
        }
        return InputStatus.MORE_AVAILABLE;
    }

    @Override
    public List<CdcSplit> snapshotState(long checkpointId) {
        List<CdcSplit> state = chunks.state();
        StreamState<P, M> s = stream;
        if (s != null) {
            state.add(s.split());
            confirmations.checkpointed(checkpointId, s.position);
        }
        return state;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        P position = confirmations.completed(checkpointId);
        ChangeStream<P> open = worker.stream();
        if (position != null && open != null) {
            open.confirm(position);
        }
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {
        if (event instanceof ChunksAcknowledgedEvent acknowledged) {
            chunks.acknowledged(acknowledged.splitIds());
        } else if (stream != null) {
            events.handle(stream, event);
        }
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        queue.signal();
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        if (worker.failure() != null || streamEmitter.hasRest()
                || (noMoreSplits && chunks.nonePending() && stream == null)) {
            return CompletableFuture.completedFuture(null);
        }
        return queue.available();
    }

    @Override
    public void close() {
        worker.close();
        StreamState<P, M> s = stream;
        if (s != null) {
            s.handoff.close();
        }
    }
}
