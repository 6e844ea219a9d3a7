package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.split.TablePlan;
import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import java.util.List;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * The enumerator's checkpointed state: what was prepared at the first start, the tables and their
 * chunk plans, chunks not yet assigned, assigned and finished, where the stream split is, and the
 * snapshot control's flags ({@link ControlState}). A
 * finished chunk is kept only until the stream split is created. Immutable.
 */
@Internal
public final class EnumeratorState<P, M> {
    /** Where the stream split is. */
    public enum StreamStatus {
        NOT_CREATED,
        ASSIGNED,
        /** Returned by a failed reader before a checkpoint held it; reassigned as it was. */
        RETURNED
    }

    final boolean initialized;
    @Nullable final P streamStart;
    @Nullable final SchemaHistory history;
    final Set<TableId> tables;
    final List<TablePlan> plans;
    final List<ChunkSplit<M>> unassigned;
    final List<ChunkSplit<M>> inFlight;
    final List<ChunkSplit<M>> finished;
    final StreamStatus streamStatus;
    @Nullable final StreamSplit<P, M> returnedStream;
    final ControlState control;

    EnumeratorState(boolean initialized, @Nullable P streamStart, @Nullable SchemaHistory history, Set<TableId> tables,
            List<TablePlan> plans, List<ChunkSplit<M>> unassigned, List<ChunkSplit<M>> inFlight,
            List<ChunkSplit<M>> finished, StreamStatus streamStatus, @Nullable StreamSplit<P, M> returnedStream) {
        this(initialized, streamStart, history, tables, plans, unassigned, inFlight, finished, streamStatus,
                returnedStream, ControlState.EMPTY);
    }

    EnumeratorState(boolean initialized, @Nullable P streamStart, @Nullable SchemaHistory history, Set<TableId> tables,
            List<TablePlan> plans, List<ChunkSplit<M>> unassigned, List<ChunkSplit<M>> inFlight,
            List<ChunkSplit<M>> finished, StreamStatus streamStatus, @Nullable StreamSplit<P, M> returnedStream,
            ControlState control) {
        this.initialized = initialized;
        this.streamStart = streamStart;
        this.history = history;
        this.tables = Set.copyOf(tables);
        this.plans = List.copyOf(plans);
        this.unassigned = List.copyOf(unassigned);
        this.inFlight = List.copyOf(inFlight);
        this.finished = List.copyOf(finished);
        this.streamStatus = streamStatus;
        this.returnedStream = returnedStream;
        this.control = control;
    }

    /** The state of a source that has not started. */
    public static <P, M> EnumeratorState<P, M> empty() {
        return new EnumeratorState<>(false, null, null, Set.of(), List.of(), List.of(), List.of(), List.of(),
                StreamStatus.NOT_CREATED, null);
    }

    @Override
    public String toString() {
        return "EnumeratorState{" + tables.size() + " tables, " + plans.size() + " being planned, " + unassigned.size()
                + " unassigned, " + inFlight.size() + " in flight, " + finished.size() + " finished, stream "
                + streamStatus + "}";
    }
}
