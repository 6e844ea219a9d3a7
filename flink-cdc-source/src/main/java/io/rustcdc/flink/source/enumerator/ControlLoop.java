package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.FinalFailure;
import io.rustcdc.flink.source.control.ControlResult;
import io.rustcdc.flink.source.control.ControlSettings;
import io.rustcdc.flink.source.control.TableReadout;
import io.rustcdc.flink.source.model.TableId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The enumerator's side of the control directory: polls it every {@code scan.control.interval} on
 * the worker thread ({@link ControlPoll}), applies the requests found on the coordinator thread
 * ({@link SnapshotOperations}), writes their results and the state readout on the worker thread,
 * and deletes a request's file once a completed checkpoint holds its effect. Reading or writing the
 * directory never fails the job: it is logged and tried again. Its handlers run on the coordinator
 * thread only.
 */
@Internal
final class ControlLoop {
    private static final Logger LOG = LoggerFactory.getLogger(ControlLoop.class);

    private final SplitEnumeratorContext<?> context;
    private final ControlSettings control;
    private final CatalogWorker<?, ?> worker;
    private final SnapshotOperations operations;
    private final Supplier<Set<TableId>> known;
    private final String source;
    private final BooleanSupplier closed;
    /** The ids of answered requests, for the poll on the worker thread. */
    private volatile Set<String> answered;
    /** The state readout last written. */
    @Nullable private List<TableReadout> written;

    ControlLoop(SplitEnumeratorContext<?> context, ControlSettings control, CatalogWorker<?, ?> worker,
            SnapshotOperations operations, Supplier<Set<TableId>> known, String source, BooleanSupplier closed) {
        this.context = context;
        this.control = control;
        this.worker = worker;
        this.operations = operations;
        this.known = known;
        this.source = source;
        this.closed = closed;
        this.answered = Set.copyOf(operations.applied);
    }

    /** The control directory's path, as the command line takes it. */
    String path() {
        return control.directory().path();
    }

    void schedule() {
        long interval = control.pollInterval().toMillis();
        context.callAsync(() -> ControlPoll.poll(control.directory(), worker, answered, known.get()),
                (polled, error) -> {
                    if (closed.getAsBoolean()) {
                        return;
                    }
                    if (error != null) {
                        LOG.warn("The snapshot control poll of {} failed; trying again at the next poll",
                                control.directory(), error);
                        return;
                    }
                    try {
                        apply(polled);
                    } catch (RuntimeException e) {
                        throw FinalFailure.markUnchecked(e);
                    }
                }, interval, interval);
    }

    private void apply(List<ControlPoll.Polled> polled) {
        List<ControlResult> results = new ArrayList<>();
        for (ControlPoll.Polled p : polled) {
            if (operations.applied.contains(p.id())) {
                continue; // answered after this poll began
            }
            ControlResult result = p.rejection() != null ? operations.reject(p.id(), p.rejection())
                    : operations.apply(p.request(), p.resolved());
            LOG.info("Snapshot control request {} of the {} source: {}", p.id(), source, result);
            results.add(result);
        }
        if (!results.isEmpty()) {
            operations.applied();
        }
        answered = Set.copyOf(operations.applied);
        List<TableReadout> readout = operations.readout();
        if (results.isEmpty() && readout.equals(written)) {
            return; // one write fewer per poll on an object store
        }
        context.callAsync(() -> {
            results.forEach(control.directory()::writeResult);
            control.directory().writeState(readout);
            return null;
        }, (ignored, error) -> {
            if (closed.getAsBoolean()) {
                return;
            }
            if (error == null) {
                written = readout;
            } else {
                LOG.warn("Could not write to the snapshot control directory {}; the state readout is written again at "
                        + "the next poll{}", control.directory(), results.isEmpty() ? "" : ", but the results of "
                        + results.stream().map(ControlResult::id).toList() + " are lost (their requests were "
                        + "applied: see the state readout)", error);
            }
        });
    }

    /** The requests whose effects checkpoint {@code checkpointId} holds are done: their files go, then their ids. */
    void checkpointCompleted(long checkpointId) {
        Set<String> done = operations.checkpointCompleted(checkpointId);
        if (done.isEmpty()) {
            return;
        }
        context.callAsync(() -> {
            done.forEach(control.directory()::deleteRequest);
            return done;
        }, (ids, error) -> {
            if (closed.getAsBoolean()) {
                return;
            }
            if (error != null) {
                LOG.warn("Could not delete answered snapshot control requests {} in {}; trying again after the next "
                        + "checkpoint", done, control.directory(), error);
                return;
            }
            operations.forget(ids);
            answered = Set.copyOf(operations.applied);
        });
    }
}
