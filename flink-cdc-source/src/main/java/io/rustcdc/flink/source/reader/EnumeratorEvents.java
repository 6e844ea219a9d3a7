package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.enumerator.SnapshotControlEvent;
import io.rustcdc.flink.source.enumerator.TablesAcceptedEvent;
import io.rustcdc.flink.source.enumerator.TablesAddedEvent;
import io.rustcdc.flink.source.enumerator.TablesRereadEvent;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.TablePlan;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the enumerator tells the reader that holds the stream: tables added since the stream started
 * (the first such answer starts the stream), tables to snapshot again while streaming, and snapshots
 * of such tables paused or stopped. Each changes the stream's state and the worker's work.
 */
final class EnumeratorEvents<P extends SourcePosition & Comparable<P>, M extends Serializable> {
    private static final Logger LOG = LoggerFactory.getLogger(EnumeratorEvents.class);

    private final SourceReaderContext context;
    private final SourceSettings settings;
    private final ReaderWorker<P, M> worker;

    EnumeratorEvents(SourceReaderContext context, SourceSettings settings, ReaderWorker<P, M> worker) {
        this.context = context;
        this.settings = settings;
        this.worker = worker;
    }

    /** Applies {@code event} to the stream's state; other events than the stream's are ignored. */
    void handle(StreamState<P, M> s, SourceEvent event) {
        if (event instanceof TablesAddedEvent added) {
            addTables(s, added);
        } else if (event instanceof TablesRereadEvent reread) {
            rereadTables(s, reread);
        } else if (event instanceof SnapshotControlEvent control) {
            control(s, control);
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
                // rows of a table taken in may have gone out (a chunk of it read, or begun by the worker, whose rows
                // are emitted even now, or emitted by an attempt that failed): it is captured from now on, so that the
                // stream emits every change of it, deletes of the rows downstream holds included (a request reads it
                // again as a captured table, every change emitted). Before, such a table was not captured while
                // stopped, and deletes made then of rows downstream held were lost (found by an adversarial probe)
                boolean delivered = !s.tables.contains(t) && (s.handoff.delivered(t) || worker.begun(t));
                s.handoff.dropTable(t);
                if (delivered) {
                    s.tables.add(t);
                    worker.capture(t);
                }
                LOG.info("The snapshot of table {} is stopped; {}", t, s.tables.contains(t)
                        ? "its changes go on being captured, every one of them" : "it is not captured");
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
}
