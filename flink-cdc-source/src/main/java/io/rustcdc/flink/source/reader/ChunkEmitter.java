package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.enumerator.ChunksFinishedEvent;
import io.rustcdc.flink.source.enumerator.SnapshotFailedEvent;
import io.rustcdc.flink.source.enumerator.StreamChunkReadEvent;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TablePlan;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.annotation.Nullable;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reader's snapshot chunks: those assigned and not read yet, and those read whose end the
 * enumerator has not acknowledged yet (both in the reader's state), and the emission of a chunk's
 * rows. A chunk of a table added while the stream runs (an inline chunk) takes its place in the
 * stream's handoff when its rows are out.
 */
final class ChunkEmitter<T, P extends SourcePosition & Comparable<P>, M extends Serializable> {
    private static final Logger LOG = LoggerFactory.getLogger(ChunkEmitter.class);

    private final SourceReaderContext context;
    private final ChangeEventDeserializer<T> deserializer;
    private final OutputCollector<T> collector;
    private final FetchedItems items;
    private final Counter chunksRead;
    private final Map<String, ChunkSplit<M>> pending = new LinkedHashMap<>();
    private final Map<String, ChunkSplit<M>> unacknowledged = new LinkedHashMap<>();

    ChunkEmitter(SourceReaderContext context, ChangeEventDeserializer<T> deserializer, OutputCollector<T> collector,
            FetchedItems items) {
        this.context = context;
        this.deserializer = deserializer;
        this.collector = collector;
        this.items = items;
        this.chunksRead = context.metricGroup().counter("snapshotChunksEmitted");
    }

    /** A chunk to read, which the worker was given. */
    void add(ChunkSplit<M> chunk) {
        pending.put(chunk.splitId(), chunk);
    }

    /** A chunk read (with its mark) but not acknowledged when the reader's state was taken. */
    void addFinished(ChunkSplit<M> chunk) {
        unacknowledged.put(chunk.splitId(), chunk);
    }

    /** The enumerator holds these chunks' ends: they leave the reader's state. */
    void acknowledged(Collection<String> splitIds) {
        splitIds.forEach(unacknowledged::remove);
    }

    /** Whether every chunk assigned was read. */
    boolean nonePending() {
        return pending.isEmpty();
    }

    /** The chunks of the reader's state: those not read, then those not acknowledged. */
    List<CdcSplit> state() {
        List<CdcSplit> state = new ArrayList<>(pending.values());
        state.addAll(unacknowledged.values());
        return state;
    }

    /**
     * Emits a chunk's rows as they arrive, from {@code first} to the chunk's end, and returns only
     * then: a checkpoint barrier waits for the chunk's end, so no checkpoint holds part of a chunk
     * (its mark is known only at its end). Waits for rows end on an interrupt (a cancellation) or a
     * failure of the worker.
     *
     * @param stream the stream's state, for an inline chunk; null when this reader holds no stream
     */
    @SuppressWarnings("unchecked")
    void emit(Fetched first, @Nullable StreamState<P, M> stream) throws Exception {
        collector.timestamp(OutputCollector.NO_TIMESTAMP);
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
        if (item instanceof Fetched.ChunkFailed failed) {
            failAdded(failed, stream);
            return;
        }
        Fetched.ChunkEnd<M> end = (Fetched.ChunkEnd<M>) item;
        chunksRead.inc();
        if (end.inline()) {
            finishAdded(end, stream);
        } else {
            finish(end.chunk());
        }
    }

    /** The next item of the chunk being emitted, waiting for the worker to read it. */
    private Fetched nextOfChunk() throws Exception {
        Fetched next = items.next();
        if (next instanceof Fetched.StreamBatch) {
            throw new IllegalStateException("Stream records arrived inside a snapshot chunk");
        }
        return next;
    }

    private void finish(ChunkSplit<M> chunk) {
        // Flink keeps an output and metric group per split until it is released; thousands of chunks add up
        collector.output().releaseOutputForSplit(chunk.splitId());
        pending.remove(chunk.splitId());
        unacknowledged.put(chunk.splitId(), chunk);
        context.sendSourceEventToCoordinator(new ChunksFinishedEvent<>(List.of(chunk)));
        if (pending.isEmpty()) {
            context.sendSplitRequest();
        }
    }

    /**
     * A requested row filter failed on a chunk of a table added while the stream runs: the enumerator is
     * told, which ends the table's snapshot as a stop does (its {@link
     * io.rustcdc.flink.source.enumerator.SnapshotControlEvent} drops the table here). Nothing when the
     * table was stopped or requested again while the chunk was read.
     */
    private void failAdded(Fetched.ChunkFailed failed, StreamState<P, M> s) {
        TablePlan plan = failed.plan();
        if (s.adding.get(plan.table()) == plan) {
            context.sendSourceEventToCoordinator(new SnapshotFailedEvent(plan.table(), plan.rowFilter(),
                    failed.serverMessage()));
        }
    }

    /** A chunk of a table added while the stream runs, its rows emitted: its place in the handoff. */
    private void finishAdded(Fetched.ChunkEnd<M> end, StreamState<P, M> s) {
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
}
