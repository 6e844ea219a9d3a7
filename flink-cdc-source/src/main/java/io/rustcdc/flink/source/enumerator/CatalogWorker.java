package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.RowFilterFailures;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.LazySession;
import io.rustcdc.flink.source.spi.RowFilterFailure;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TablePlan;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The enumerator's database side: one catalogue session, used only by the calls the enumerator
 * hands to {@link org.apache.flink.api.connector.source.SplitEnumeratorContext#callAsync}, which
 * Flink runs one at a time on the enumerator's single worker thread, so that checkpoints and the
 * JobManager's calls never wait on the database. It holds none of the enumerator's state: a call
 * gets what it needs as arguments and returns what it found, which the enumerator takes into its
 * state on the coordinator thread.
 *
 * <p>The session stays open while chunks are being planned and is closed after any other call, and
 * after a call that failed (the next call opens a new one). {@link #close} may come from any thread
 * while a call runs; the session is then closed by that call when it ends, so two threads never
 * use it at once.
 */
@Internal
final class CatalogWorker<P extends SourcePosition & Comparable<P>, M extends Serializable> {
    private static final Logger LOG = LoggerFactory.getLogger(CatalogWorker.class);
    private final CdcConnector<P, M> connector;
    private final SourceSettings settings;
    private final LazySession<P, M> session;
    private final TableDiscovery<P, M> discovery;

    /** Descriptions read by earlier calls, for planning chunks; worker thread only. */
    private final Map<TableId, TableDescription> descriptions = new HashMap<>();
    /** Whether the session stays open after a call, for more chunks to plan; worker thread only. */
    private boolean planning;

    /** A call is running (guarded by this). */
    private boolean busy;
    /** The enumerator is closed: no more calls (guarded by this). */
    private boolean closed;

    CatalogWorker(CdcConnector<P, M> connector, SourceSettings settings) {
        this.connector = connector;
        this.settings = settings;
        this.session = new LazySession<>(connector);
        this.discovery = new TableDiscovery<>(connector, settings);
    }

    /** The first start's work: see {@link FirstStart}. */
    FirstStart.Result<P> firstStart() {
        return call(() -> {
            FirstStart.Result<P> result = FirstStart.run(session.get(), connector, settings);
            result.descriptions().forEach(d -> descriptions.put(d.table(), d));
            planning = !result.plans().isEmpty();
            return result;
        });
    }

    /** The tables not in {@code captured} that the include list matches now: see {@link TableDiscovery#find}. */
    List<TableDiscovery.Found> discover(Set<TableId> captured, boolean strict) {
        return call(() -> {
            List<TableDiscovery.Found> found = discovery.find(session.get(), captured, strict);
            found.forEach(f -> descriptions.put(f.plan.table(), f.description));
            return found;
        });
    }

    /** Resolves the tables of an on-demand request: see {@link TableDiscovery#resolve}. */
    List<TableDiscovery.Found> resolve(List<String> names, Set<TableId> captured, java.util.Map<String, String> rowFilters,
            String request) {
        return call(() -> {
            List<TableDiscovery.Found> found = discovery.resolve(session.get(), names, captured, rowFilters, request);
            found.forEach(f -> descriptions.put(f.plan.table(), f.description));
            return found;
        });
    }

    /**
     * Up to {@code count} chunks of {@code plan}'s table, in key order: fewer when the table ends
     * first. A key the connector's order cannot split is one chunk, found without asking the database.
     */
    PlannedChunks<M> plan(TablePlan plan, int count) {
        return call(() -> {
            planning = true;
            List<ChunkSplit<M>> chunks = new ArrayList<>();
            TablePlan next = plan.nextIndex() == 0 ? planFromNow(plan) : plan;
            while (next != null && chunks.size() < count) {
                Object[] upTo = null;
                if (next.key().splittable()) {
                    try {
                        upTo = session.get().nextChunkEnd(description(next.table()), next.key().columns(),
                                next.nextAfter(), settings.chunkSize(), next.rowFilter());
                    } catch (RowFilterFailure e) {
                        throw RowFilterFailures.configured(e, settings) ? RowFilterFailures.ofConfigured(e, settings)
                                : RowFilterFailures.ofRequestedInFirstSnapshot(e);
                    }
                    requireAdvanced(next, upTo);
                }
                chunks.add(next.chunk(upTo));
                next = upTo == null ? null : next.after(upTo);
            }
            return new PlannedChunks<>(plan, chunks, next);
        });
    }

    /**
     * The plan of a table none of whose chunks is planned yet, with its chunk key as the table is now: a key described
     * earlier (the table waited behind others for the enumerator's chunks) whose columns, nullability or order (a
     * column's collation or type) changed since is taken anew, so the table is planned and read in one order rather
     * than failing its snapshot, as a change of type or collation after its first chunk was planned must. (A table
     * found while the stream runs is planned by the stream's reader, which fails on such a change.)
     */
    private TablePlan planFromNow(TablePlan plan) {
        TableDescription now;
        try {
            now = session.get().describe(plan.table());
        } catch (CdcException e) {
            if (e.kind() != CdcException.Kind.PREREQUISITE) {
                throw e;
            }
            // the table gone, or a shape the source refuses: the first chunk end or read fails as the connector says
            return plan;
        }
        descriptions.put(plan.table(), now);
        String change = plan.key().changeIn(now, settings.chunkKeyColumn(plan.table()));
        if (change == null) {
            return plan;
        }
        LOG.info("The chunk key of table {} changed before any of its chunks was planned ({}): its snapshot is planned "
                + "in the key's order now.", plan.table().qualifiedName(), change);
        try {
            return TablePlan.start(plan.table(), TableDiscovery.key(session.get(), connector, settings, now),
                    plan.rowFilter());
        } catch (CdcException e) {
            throw new CdcException(e.kind(), "The chunk key of table " + plan.table().qualifiedName() + " changed "
                    + "before any of its chunks was planned (" + change + "), and the new one cannot be used: "
                    + e.getMessage(), e);
        }
    }

    /**
     * A chunk end must differ from the end before it, which the database found it after: an equal one would plan the
     * same empty chunk forever. Only a key the connector decodes otherwise than the database compares it gives one
     * (a key column's character set converted while the table is snapshotted, its description read before), so the
     * chunk ends planned may be wrong too: the snapshot fails for good.
     */
    private static void requireAdvanced(TablePlan plan, @Nullable Object[] upTo) {
        if (upTo != null && plan.nextAfter() != null && Arrays.deepEquals(upTo, plan.nextAfter())) {
            throw new CdcException(CdcException.Kind.STATE, "Table " + plan.table().qualifiedName() + " cannot be read "
                    + "on in chunks of its key " + plan.key().columns() + ": the database gave the end of the last chunk "
                    + "planned as the end of the chunk after it too, so the source no longer decodes the key as the "
                    + "database compares it (its type, character set or collation changed while the table was "
                    + "snapshotted). Restart the job without its state, so that the table is read anew.");
        }
    }

    /** Every chunk is planned: the session is closed until it is needed again. */
    Void release() {
        return call(() -> {
            planning = false;
            return null;
        });
    }

    /** Closes the session now, or when the call that uses it ends; no call runs after this. Any thread. */
    void close() {
        synchronized (this) {
            closed = true;
            if (busy) {
                return; // that call closes the session when it ends
            }
        }
        session.close();
    }

    private TableDescription description(TableId table) {
        TableDescription d = descriptions.get(table);
        if (d == null) {
            d = session.get().describe(table); // after a restore: not read by this worker yet
            descriptions.put(table, d);
        }
        return d;
    }

    private <T> T call(Supplier<T> work) {
        synchronized (this) {
            if (closed) {
                throw new CancellationException("The enumerator of the " + connector.name() + " source is closed");
            }
            busy = true;
        }
        T result;
        try {
            result = work.get();
        } catch (RuntimeException | Error e) {
            try {
                end(true);
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        end(false);
        return result;
    }

    private void end(boolean failed) {
        boolean closeNow;
        synchronized (this) {
            busy = false;
            closeNow = closed || failed || !planning;
        }
        if (closeNow) {
            session.close();
        }
    }

    /** What {@link #plan} found: the chunks, and the plan of the rest of the table (null: none left). */
    record PlannedChunks<M>(TablePlan from, List<ChunkSplit<M>> chunks, @Nullable TablePlan next) {
        PlannedChunks {
            chunks = List.copyOf(chunks);
        }
    }
}
