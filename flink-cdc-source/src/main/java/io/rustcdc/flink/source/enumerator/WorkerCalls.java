package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.FinalFailure;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.TablePlan;
import java.io.Serializable;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * The enumerator's calls of its {@link CatalogWorker}: each is handed to {@link
 * SplitEnumeratorContext#callAsync}, runs on the enumerator's worker thread, and its result is
 * applied by a handler on the coordinator thread. A failed call fails the job from its handler, as
 * if the enumerator had thrown it: marked {@link FinalFailure} when its kind is final. Once closed,
 * handlers change nothing.
 */
@Internal
final class WorkerCalls<P extends SourcePosition & Comparable<P>, M extends Serializable> {
    private final SplitEnumeratorContext<CdcSplit> context;
    private final CatalogWorker<P, M> worker;
    private final String source;
    private volatile boolean closed;

    WorkerCalls(SplitEnumeratorContext<CdcSplit> context, CatalogWorker<P, M> worker, String source) {
        this.context = context;
        this.worker = worker;
        this.source = source;
    }

    /** The first start's work ({@link FirstStart}); {@code then} takes what it found. */
    void firstStart(Consumer<FirstStart.Result<P>> then) {
        context.callAsync(worker::firstStart, handler(Function.identity(), then));
    }

    /**
     * The search for tables not in {@code known} that the include list matches, once, strictly (a table
     * whose prerequisites are not met fails the job): after a restore.
     */
    void discover(Supplier<Set<TableId>> known, Consumer<List<TableDiscovery.Found>> then) {
        context.callAsync(() -> worker.discover(known.get(), true), handler(Function.identity(), then));
    }

    /**
     * The search for added tables every {@code intervalMillis}: a table whose prerequisites are not met
     * is looked at again next time, any other failure fails the job as a {@code CONNECTION} failure.
     */
    void discoverEvery(long intervalMillis, Supplier<Set<TableId>> known, Consumer<List<TableDiscovery.Found>> then) {
        context.callAsync(() -> worker.discover(known.get(), false), handler(error -> new CdcException(
                CdcException.Kind.CONNECTION, "Looking for tables of the " + source + " source created since it "
                        + "started failed: " + error.getMessage(), error), then), intervalMillis, intervalMillis);
    }

    /** Plans up to {@code count} chunks from {@code plan}; {@code failed} runs first when that fails. */
    void plan(TablePlan plan, int count, Runnable failed, Consumer<CatalogWorker.PlannedChunks<M>> then) {
        context.callAsync(() -> worker.plan(plan, count), (planned, error) -> {
            if (error != null && !closed) {
                failed.run();
            }
            handler(Function.identity(), then).accept(planned, error);
        });
    }

    /** Every chunk is planned: the session is closed until added tables need it. */
    void release() {
        context.callAsync(worker::release, handler(Function.identity(), ignored -> {}));
    }

    boolean closed() {
        return closed;
    }

    /** Closes the catalogue session now, or on the worker thread when the call using it ends. Any thread. */
    void close() {
        closed = true;
        worker.close();
    }

    /**
     * A handler for a call, run on the coordinator thread: applies the result, or fails the job with the
     * error ({@code failure} may put it in words), marked final when it is. Does nothing once closed.
     */
    private <T> BiConsumer<T, Throwable> handler(Function<Throwable, Throwable> failure, Consumer<T> apply) {
        return (result, error) -> {
            if (closed) {
                return;
            }
            if (error != null) {
                throw FinalFailure.markUnchecked(failure.apply(error));
            }
            try {
                apply.accept(result);
            } catch (RuntimeException e) {
                throw FinalFailure.markUnchecked(e);
            }
        };
    }
}
