package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.enumerator.StreamOwnerEvent;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.EmittedShapes;
import io.rustcdc.flink.source.split.StreamSplit;
import io.rustcdc.flink.source.split.TablePlan;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The stream split as the {@link CdcSourceReader} advances it. */
final class StreamState<P extends SourcePosition & Comparable<P>, M extends Serializable> {
    private static final Logger LOG = LoggerFactory.getLogger(StreamState.class);

    final Handoff<P, M> handoff;
    final ShapeRecorder recorder;
    final Set<TableId> tables;
    final Map<TableId, TablePlan> adding = new LinkedHashMap<>();
    private final Set<TableId> leftOut = new HashSet<>();
    /** What the stream's events said of each table's shape up to {@link #position}. */
    final EmittedShapes shapes;
    P position;
    /** The transaction begun and not ended at {@link #position}, for its markers. */
    final TransactionMarkers markers;
    /** Whether the worker streams: only once the enumerator has answered (see {@link StreamOwnerEvent}). */
    boolean streaming;

    StreamState(StreamSplit<P, M> split, Handoff<P, M> handoff, ShapeRecorder recorder) {
        this.handoff = handoff;
        this.recorder = recorder;
        this.tables = new HashSet<>(split.tables());
        split.adding().forEach(p -> adding.put(p.table(), p));
        this.position = split.position();
        this.shapes = split.shapes().copy();
        this.markers = new TransactionMarkers(split.openTransaction());
    }

    /** The split to checkpoint: this state at its position. */
    StreamSplit<P, M> split() {
        return StreamSplit.of(position, handoff.remaining(), tables, recorder.history().copy(),
                new ArrayList<>(adding.values()), shapes.copy()).withOpenTransaction(markers.open());
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
            LOG.warn("A change of table {}, which the include list matches but which is not captured, was left out "
                    + "(and so are its later ones until it is): downstream holds no row of it. The source captures it "
                    + "from its snapshot on, whose rows are the table as it is then: taken when the source finds the "
                    + "table (see 'scan.table-discovery.interval'), or, for a table whose snapshot was stopped before "
                    + "any of its rows went out, when it is requested again (docs/operations.md, On-demand snapshots)",
                    event.table());
        }
    }
}
