package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.model.TransactionMarker;
import io.rustcdc.flink.source.split.OpenTransaction;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import javax.annotation.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction markers of the stream ({@link TransactionMarker}): a begin right before the first
 * emitted event of a transaction, an end at its commit record, counting what was emitted in between.
 * Fed, in stream order, every event the stream emits and every transaction end; the transaction begun
 * and not ended is part of the stream split ({@link OpenTransaction}), so a restore inside it goes on
 * counting it and never begins it twice.
 */
final class TransactionMarkers {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionMarkers.class);

    /** Receives each marker as it is due. */
    interface Sink {
        void marker(TransactionMarker marker) throws Exception;
    }

    @Nullable private String id;
    private String connector;
    @Nullable private Instant commitTime;
    /** Events emitted of the transaction begun, by table: a count each, changed in place. */
    private final Map<TableId, long[]> events = new HashMap<>();
    /** The table of the last event counted and its count: a run of one table's events looks it up once. */
    @Nullable private TableId lastTable;
    private long[] lastCount;

    TransactionMarkers(@Nullable OpenTransaction open) {
        if (open != null) {
            id = open.id();
            connector = open.connector();
            commitTime = open.commitTime();
            open.eventsPerTable().forEach((table, count) -> events.put(table, new long[] {count}));
        }
    }

    /** Before {@code event} is emitted: begins its transaction if it is the first of it. */
    void beforeEmitted(ChangeEvent event, Sink sink) throws Exception {
        TransactionInfo tx = event.transaction();
        if (tx == null || event.source().snapshot()) {
            return; // its own boundary: snapshot rows of a table being added, a non-transactional message
        }
        if (id != null && !id.equals(tx.id())) {
            // every connector marks its ends (CdcConnector#marksTransactionEnds): a stream that did not is ended here
            LOG.warn("The stream sent a change of transaction {} before the end of transaction {}; its end marker is "
                    + "emitted now, at {}", tx.id(), id, event.source().position());
            end(event.source().position(), sink);
        }
        if (id == null) {
            id = tx.id();
            connector = event.source().connector();
            commitTime = event.source().commitTime();
            sink.marker(TransactionMarker.begin(id, event.source()));
        }
        TableId table = event.table();
        if (table != lastTable) {
            lastCount = events.computeIfAbsent(table, t -> new long[1]);
            lastTable = table;
        }
        lastCount[0]++;
    }

    /** At a transaction's end record, whose position is {@code after}: ends the transaction begun, if any. */
    void transactionEnded(SourcePosition after, Sink sink) throws Exception {
        if (id != null) {
            end(after, sink);
        }
    }

    /** The transaction begun and not ended, for the stream split; null between transactions. */
    @Nullable
    OpenTransaction open() {
        return id == null ? null : new OpenTransaction(id, connector, commitTime, counts());
    }

    private void end(SourcePosition after, Sink sink) throws Exception {
        TransactionMarker end = TransactionMarker.end(id, SourceInfo.stream(connector, after, commitTime), counts());
        id = null;
        commitTime = null;
        events.clear();
        lastTable = null;
        lastCount = null;
        sink.marker(end);
    }

    private Map<TableId, Long> counts() {
        Map<TableId, Long> counts = new HashMap<>();
        events.forEach((table, count) -> counts.put(table, count[0]));
        return counts;
    }
}
