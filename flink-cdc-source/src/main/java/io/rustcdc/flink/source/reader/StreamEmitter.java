package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TransactionMarker;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import javax.annotation.Nullable;

/**
 * Emits stream records one by one, each moving the stream's position exactly past itself; the
 * handoff and the schema history are applied here, at emission, so that they always match that
 * position. Under {@code scan.transaction-boundaries = preserve} one call emits records up to a
 * transaction's end ({@link TransactionCut}), so that no checkpoint falls inside a transaction. The
 * deserializer is handed each transaction's begin and end markers ({@link TransactionMarkers}) too.
 */
final class StreamEmitter<T, P extends SourcePosition & Comparable<P>, M extends Serializable> {
    private final ChangeEventDeserializer<T> deserializer;
    private final OutputCollector<T> collector;
    private final FetchedItems items;
    private final ChunkEmitter<T, P, M> chunks;
    private final TransactionCut cut;
    /** Records of a batch not emitted yet: the call that took the batch cut a transaction over the bound. */
    private List<StreamRecord<P>> rest = List.of();

    StreamEmitter(ChangeEventDeserializer<T> deserializer, OutputCollector<T> collector, FetchedItems items,
            ChunkEmitter<T, P, M> chunks, TransactionCut cut) {
        this.deserializer = deserializer;
        this.collector = collector;
        this.items = items;
        this.chunks = chunks;
        this.cut = cut;
    }

    /** Whether records of a cut batch wait for the next call ({@link #emitRest}). */
    boolean hasRest() {
        return !rest.isEmpty();
    }

    /** Emits the records a call before left, as {@link #emit} does. */
    void emitRest(StreamState<P, M> stream) throws Exception {
        emit(rest, stream);
    }

    /**
     * Emits {@code batch}, and then, while a transaction is open ({@link TransactionCut}), the next
     * items of the queue as they arrive (a chunk of a table being added, which the worker reads between
     * stream batches, is emitted whole among them): the call returns at a point where a checkpoint may
     * fall. A transaction over the bound is cut before the change beyond it; the records from there on
     * wait in {@link #rest} for the next call.
     */
    @SuppressWarnings("unchecked")
    void emit(List<StreamRecord<P>> batch, StreamState<P, M> stream) throws Exception {
        List<StreamRecord<P>> records = batch;
        while (true) {
            stream.handoff.prepare(records); // the keys the database places, one query per such table
            for (int i = 0; i < records.size(); i++) {
                if (cut.overBound(records.get(i))) {
                    rest = records.subList(i, records.size());
                    return;
                }
                emitRecord(records.get(i), stream);
            }
            rest = List.of();
            if (cut.atBoundary()) {
                return;
            }
            Fetched next = items.next();
            if (next instanceof Fetched.StreamBatch<?> more) {
                records = (List<StreamRecord<P>>) (List<?>) more.records();
            } else {
                chunks.emit(next, stream);
                records = List.of();
            }
        }
    }

    /** Emits one stream record, moving the position past it. */
    private void emitRecord(StreamRecord<P> record, StreamState<P, M> s) throws Exception {
        ChangeEvent event = record.event();
        if (event != null) {
            s.shapes.record(event); // every event the stream returned, as the stream itself saw them
        }
        if (event != null && !s.captures(event)) {
            s.warnIfLeftOut(event);
        } else if (event != null) {
            ChangeEvent decided = s.handoff.decide(event, record.position());
            if (decided != null) {
                long version = s.recorder.record(decided, record.position());
                ChangeEvent out = version > 0 ? SchemaChangeRows.withHistoryVersion(decided, version) : decided;
                s.markers.beforeEmitted(out, this::emitMarker);
                collector.timestamp(timestamp(out.source().commitTime()));
                deserializer.deserialize(out, collector);
            }
        }
        s.position = record.position();
        s.handoff.advance(s.position);
        if (record.endsTransaction()) {
            s.markers.transactionEnded(record.position(), this::emitMarker);
        }
        cut.take(record);
    }

    private void emitMarker(TransactionMarker marker) throws Exception {
        collector.timestamp(timestamp(marker.source().commitTime()));
        deserializer.transactionMarker(marker, collector);
    }

    private static long timestamp(@Nullable Instant commitTime) {
        return commitTime == null ? OutputCollector.NO_TIMESTAMP : commitTime.toEpochMilli();
    }
}
