package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.TablePlan;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;

/**
 * The durable part of the snapshot control, in the enumerator's checkpoint: paused and stopped tables,
 * tables requested again that the stream's reader has not taken yet, tables that reader is
 * snapshotting, the ids of the control requests already answered, the row filter of each table's
 * last snapshot started (empty: none), for the readout, and the stopped tables whose requested
 * snapshot failed, with the reason (the database's message, shortened). Immutable.
 */
@Internal
record ControlState(Set<TableId> paused, Set<TableId> stopped, List<TablePlan> rereads,
        Set<TableId> streamSnapshotting, Set<String> applied, Map<TableId, String> rowFilters,
        Map<TableId, String> failed) {
    static final ControlState EMPTY = new ControlState(Set.of(), Set.of(), List.of(), Set.of(), Set.of());

    /** Without row filters known: the state of enumerator state version 3. */
    ControlState(Set<TableId> paused, Set<TableId> stopped, List<TablePlan> rereads, Set<TableId> streamSnapshotting,
            Set<String> applied) {
        this(paused, stopped, rereads, streamSnapshotting, applied, Map.of());
    }

    /** Without failed snapshots known: the state of enumerator state version 4. */
    ControlState(Set<TableId> paused, Set<TableId> stopped, List<TablePlan> rereads, Set<TableId> streamSnapshotting,
            Set<String> applied, Map<TableId, String> rowFilters) {
        this(paused, stopped, rereads, streamSnapshotting, applied, rowFilters, Map.of());
    }

    ControlState {
        paused = Set.copyOf(paused);
        stopped = Set.copyOf(stopped);
        rereads = List.copyOf(rereads);
        streamSnapshotting = Set.copyOf(streamSnapshotting);
        applied = Set.copyOf(applied);
        rowFilters = Map.copyOf(rowFilters);
        failed = Map.copyOf(failed);
    }
}
