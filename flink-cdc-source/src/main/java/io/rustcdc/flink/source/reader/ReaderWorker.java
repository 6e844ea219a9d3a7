package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.RowFilterFailures;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.LazySession;
import io.rustcdc.flink.source.spi.RowFilterFailure;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TablePlan;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
/**
 * The database side of a reader, on a thread of its own: it reads assigned chunks one after
 * another or polls the change stream, and puts what it read into the {@link RecordQueue}. A chunk's
 * rows go into the queue in batches of {@link #CHUNK_BATCH} as the connector reads them, then its
 * end with its mark ({@link Fetched}); a full queue blocks the read, so a chunk of any size is held
 * at most {@link #MAX_ROWS_HELD} rows at a time. Decisions that touch checkpointed state (the
 * handoff, the schema history, positions) are the task thread's, when it emits; the worker only reads,
 * and counts what the connector says it read in Flink's {@code numBytesIn} ({@link BytesIn}).
 */

@Internal
final class ReaderWorker<P extends SourcePosition & Comparable<P>, M extends Serializable> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReaderWorker.class);
    private static final int STREAM_BATCH = 1024;
    /** Rows of a chunk per queue item. */
    static final int CHUNK_BATCH = 512;
    /** Items the queue holds. */
    static final int QUEUE_CAPACITY = 8;
    /**
     * The most rows of a chunk between the connector and Flink's output: a full queue, the batch the
     * worker fills and the batch the task thread emits.
     */
    static final int MAX_ROWS_HELD = (QUEUE_CAPACITY + 2) * CHUNK_BATCH;
    /** How long {@link #close} lets an interrupt end the worker before it closes the worker's connections. */
    static final Duration INTERRUPT_GRACE = Duration.ofSeconds(2);
    /** How long {@link #close} then waits for the worker to end. */
    static final Duration CLOSE_LIMIT = Duration.ofSeconds(10);

    private final CdcConnector<P, M> connector;
    private final SourceSettings settings;
    private final int chunkSize;
    private final Deque<TablePlan> tablesToRead = new ConcurrentLinkedDeque<>();
    private final RecordQueue queue;
    private final MetricGroup metrics;
    /** Flink's numBytesIn, fed by the chunk reads' session and by the stream (each a total of its own). */
    private final BytesIn chunkBytes;
    private final BytesIn streamBytes;
    private volatile long fetchLagMillis = -1;
    private final ExecutorService thread;
    private volatile boolean closed;
    private volatile Throwable failure;
    private final LazySession<P, M> session;
    /** The session the worker opened (the lazy session's, for {@link #close} from another thread); null when none. */
    @Nullable private volatile CatalogSession<P, M> sessionInUse;
    private final AtomicBoolean connectionsClosed = new AtomicBoolean();
    @Nullable private volatile Thread workerThread;
    /**
     * One description per table: it only names the table and its key types to the connector, which
     * describes the table again inside each chunk's read (that is the shape the rows carry).
     */
    private final Map<TableId, Described> described = new HashMap<>();
    @Nullable private volatile ChangeStream<P> stream;
    private volatile Set<TableId> paused = Set.of();
    private volatile Set<TableId> stopped = Set.of();
    /** Tables a chunk of which the worker began to read while streaming: rows of theirs may have gone out. */
    private final Set<TableId> begun = ConcurrentHashMap.newKeySet();
    /** Tables captured since the stream opened without a snapshot to its end (stopped part-way), for the stream. */
    private final Queue<TableId> capturing = new ConcurrentLinkedQueue<>();

    ReaderWorker(CdcConnector<P, M> connector, SourceSettings settings, RecordQueue queue, String name,
            SourceReaderMetricGroup metrics) {
        this.connector = connector;
        this.settings = settings;
        this.session = new LazySession<>(connector);
        this.chunkSize = settings.chunkSize();
        this.queue = queue;
        this.metrics = metrics;
        this.chunkBytes = new BytesIn(metrics.getIOMetricGroup().getNumBytesInCounter());
        this.streamBytes = new BytesIn(metrics.getIOMetricGroup().getNumBytesInCounter());
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            workerThread = t;
            return t;
        });
    }

    /** The first failure of the worker, which the task thread rethrows. */
    @Nullable
    Throwable failure() {
        return failure;
    }

    /** Milliseconds from the commit of the last change read to when it was read; -1 before any. */
    long fetchLagMillis() {
        return fetchLagMillis;
    }

    /** The open change stream, or null before it opened. */
    @Nullable
    ChangeStream<P> stream() {
        return stream;
    }

    void readChunk(ChunkSplit<M> chunk) {
        thread.execute(() -> guarded(() -> {
            CatalogSession<P, M> s = session();
            TableDescription table = described(s, chunk.table(), chunk.key(),
                    chunk.after() != null || chunk.upTo() != null);
            ChunkOutput rows = new ChunkOutput(false, s);
            M mark;
            try {
                mark = s.readChunk(table, chunk.key().columns(), chunk.after(), chunk.upTo(), chunk.rowFilter(), rows);
            } catch (RowFilterFailure e) {
                throw RowFilterFailures.configured(e, settings) ? RowFilterFailures.ofConfigured(e, settings)
                        : RowFilterFailures.ofRequestedInFirstSnapshot(e);
            }
            rows.flush();
            queue.put(new Fetched.ChunkEnd<>(chunk.finished(mark), false));
        }));
    }

    /**
     * The table as described for a chunk with a bound ({@code bounded}): in the order {@code key} was planned in, else
     * the chunk fails the source ({@link ChunkKey#requireOrderOf}); the connector checks that the chunk reads in the
     * order of the description it is given. The description kept is used for chunks of the key it was found to order
     * as; for another key (the table planned again, maybe after its key changed) the table is described anew. A chunk
     * of the whole table keeps no order: the description kept, if any.
     */
    private TableDescription described(CatalogSession<P, M> s, TableId table, ChunkKey key, boolean bounded) {
        Described kept = described.get(table);
        if (kept != null && (!bounded || key.equals(kept.key))) {
            return kept.table;
        }
        TableDescription now = s.describe(table);
        if (bounded) {
            key.requireOrderOf(now);
        }
        described.put(table, new Described(now, bounded ? key : null));
        return now;
    }

    /** A table's description, and the planned chunk key it was found to order as (null: not compared). */
    private record Described(TableDescription table, @Nullable ChunkKey key) {}

    /** Snapshots a table added while the stream runs, chunk by chunk between stream batches, from {@code plan}. */
    void addTable(TablePlan plan) {
        tablesToRead.add(plan);
    }

    /**
     * Tables whose chunks are not read until they leave {@code paused}, and whose plans are dropped
     * ({@code stopped}); each call replaces the last. A chunk being read is read to its end.
     */
    void control(Set<TableId> paused, Set<TableId> stopped) {
        this.paused = Set.copyOf(paused);
        this.stopped = Set.copyOf(stopped);
    }

    /** Whether the worker began to read a chunk of {@code table} while streaming (rows of it may have gone out). */
    boolean begun(TableId table) {
        return begun.contains(table);
    }

    /** {@code table}, whose snapshot was stopped part-way, is captured from now on: the stream is told. */
    void capture(TableId table) {
        capturing.add(table);
    }

    /** The first plan of a table not paused, the stopped ones dropped; null when none. */
    @Nullable
    private TablePlan nextToRead() {
        Set<TableId> s = stopped;
        tablesToRead.removeIf(p -> s.contains(p.table()));
        Set<TableId> p = paused;
        for (TablePlan plan : tablesToRead) {
            if (!p.contains(plan.table())) {
                return plan;
            }
        }
        return null;
    }

    /**
     * Reads the next chunk of a table being added; true when it was the table's last. A requested row
     * filter that fails on the chunk's rows ends the table's read here ({@link Fetched.ChunkFailed}); a
     * configured one fails the source.
     */
    private boolean readAddedChunk(TablePlan plan) throws Exception {
        CatalogSession<P, M> s = session();
        if (plan.nextAfter() == null) {
            described.remove(plan.table()); // a table read (again) from its start: described as it is now
        }
        TableDescription table = described(s, plan.table(), plan.key(), plan.key().splittable());
        ChunkOutput rows = new ChunkOutput(true, s);
        Object[] upTo = null;
        M mark;
        begun.add(plan.table());
        try {
            upTo = plan.key().splittable()
                    ? s.nextChunkEnd(table, plan.key().columns(), plan.nextAfter(), chunkSize, plan.rowFilter())
                    : null;
            tablesToRead.removeIf(p -> p == plan);
            mark = s.readChunk(table, plan.key().columns(), plan.nextAfter(), upTo, plan.rowFilter(), rows);
        } catch (RowFilterFailure e) {
            if (RowFilterFailures.configured(e, settings)) {
                throw RowFilterFailures.ofConfigured(e, settings);
            }
            tablesToRead.removeIf(p -> p == plan);
            LOG.warn("The row filter of a control request for table {} failed on rows of a chunk; the enumerator ends "
                    + "the table's snapshot as failed: {}", plan.table(), e.serverMessage());
            queue.put(new Fetched.ChunkFailed(plan, e.serverMessage()));
            return false;
        }
        rows.flush();
        TablePlan next = upTo == null ? null : plan.after(upTo);
        queue.put(new Fetched.ChunkEnd<>(plan.<M>chunk(upTo).finished(mark), true, plan, next));
        // not when the table was stopped meanwhile, or requested again (its new plan is there)
        if (next != null && !stopped.contains(plan.table())
                && tablesToRead.stream().noneMatch(p -> p.table().equals(plan.table()))) {
            tablesToRead.addFirst(next);
        }
        return upTo == null;
    }

    /**
     * Streams from {@code from}; {@code captured} are the tables snapshotted already (see {@link
     * ChangeStream#captured}), {@code shapes} what the stream's events said of their shapes before
     * {@code from} (see {@link ChangeStream#resumeShapes}).
     */
    void stream(P from, TableFilter filter, Set<TableId> captured,
            io.rustcdc.flink.source.spi.EmittedShapes shapes) {
        Set<TableId> tables = new HashSet<>(captured);
        thread.execute(() -> guarded(() -> {
            closeSession(); // chunks are done: the stream needs only its own connections, until a table is added
            ChangeStream<P> s = connector.openStream(from, filter);
            s.registerMetrics(metrics.addGroup(connector.name()));
            s.captured(Set.copyOf(tables));
            s.resumeShapes(shapes);
            streamBytes.from(0); // what it read since it opened
            stream = s;
            if (connectionsClosed.get()) {
                s.close(); // close() gave up waiting while it opened
                return;
            }
            while (!closed) {
                if (!capturing.isEmpty()) {
                    for (TableId t; (t = capturing.poll()) != null; ) {
                        tables.add(t);
                    }
                    s.captured(Set.copyOf(tables));
                }
                TablePlan added = nextToRead();
                if (added != null) {
                    if (readAddedChunk(added) && !stopped.contains(added.table())) {
                        tables.add(added.table());
                        s.captured(Set.copyOf(tables));
                    }
                    continue;
                }
                StreamRecord<P> first = s.poll(Duration.ofMillis(200));
                streamBytes.to(s.bytesRead());
                if (first == null) {
                    continue;
                }
                List<StreamRecord<P>> batch = new ArrayList<>();
                batch.add(first);
                StreamRecord<P> next;
                while (batch.size() < STREAM_BATCH && (next = s.poll(Duration.ZERO)) != null) {
                    batch.add(next);
                }
                streamBytes.to(s.bytesRead());
                for (int i = batch.size() - 1; i >= 0; i--) {
                    ChangeEvent e = batch.get(i).event();
                    if (e != null && e.source().commitTime() != null) {
                        fetchLagMillis = System.currentTimeMillis() - e.source().commitTime().toEpochMilli();
                        break;
                    }
                }
                queue.put(new Fetched.StreamBatch<>(batch));
            }
        }));
    }

    /** The worker's session, opened on first use. */
    private CatalogSession<P, M> session() {
        CatalogSession<P, M> s = session.get();
        sessionInUse = s;
        if (connectionsClosed.get()) {
            s.close(); // close() gave up waiting while it opened
            throw new IllegalStateException("The reader is closed");
        }
        return s;
    }

    private void closeSession() {
        sessionInUse = null;
        session.close();
    }

    /** Puts a chunk's rows into the queue in batches, as the connector reads them; counts the session's bytes. */
    private final class ChunkOutput implements Consumer<ChangeEvent> {
        private final boolean inline;
        private final CatalogSession<P, M> session;
        private List<ChangeEvent> batch = new ArrayList<>(CHUNK_BATCH);

        ChunkOutput(boolean inline, CatalogSession<P, M> session) {
            this.inline = inline;
            this.session = session;
            chunkBytes.from(session.bytesRead());
        }

        @Override
        public void accept(ChangeEvent row) {
            batch.add(row);
            if (batch.size() == CHUNK_BATCH) {
                flush();
            }
        }

        void flush() {
            chunkBytes.to(session.bytesRead());
            if (batch.isEmpty()) {
                return;
            }
            try {
                queue.put(new Fetched.ChunkRows(batch, inline));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Interrupted(e); // the connector's callback may throw only unchecked exceptions
            }
            batch = new ArrayList<>(CHUNK_BATCH);
        }
    }

    /** An interrupt while a chunk's rows waited for room in the queue (see {@link ChunkOutput#flush}). */
    private static final class Interrupted extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Interrupted(InterruptedException cause) {
            super("Interrupted while a chunk's rows waited for the reader", cause);
        }
    }

    private interface Work {
        void run() throws Exception;
    }

    private void guarded(Work work) {
        if (closed || failure != null) {
            return;
        }
        try {
            work.run();
        } catch (Interrupted e) {
            if (!closed) {
                failure = e.getCause();
            }
            Thread.currentThread().interrupt();
        } catch (InterruptedException e) {
            if (!closed) {
                failure = e;
            }
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            if (!closed) {
                LOG.error("The source's reader failed", t);
                failure = t;
            }
        } finally {
            if (failure != null) {
                queue.signal();
            }
        }
    }

    /**
     * Ends the worker promptly, as Flink's cancellation needs: the thread is interrupted, which ends
     * its waits; a read blocked in a database call (which an interrupt does not end) is ended by
     * closing the stream and the session from here, after {@link #INTERRUPT_GRACE}. Returns within
     * about {@link #INTERRUPT_GRACE} plus {@link #CLOSE_LIMIT}, logging the worker's stack if it still
     * runs then (it stays a daemon thread that can no longer deliver anything).
     */
    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
        if (!awaitWorker(INTERRUPT_GRACE)) {
            LOG.info("The reader's worker did not end on its interrupt within {} ms: closing its connections to end "
                    + "its blocking call", INTERRUPT_GRACE.toMillis());
            // on a thread of its own: a driver's close may itself block, and this must not
            Thread closer = new Thread(this::closeConnections, Thread.currentThread().getName() + "-closer");
            closer.setDaemon(true);
            closer.start();
            if (!awaitWorker(CLOSE_LIMIT)) {
                Thread worker = workerThread;
                StringBuilder stack = new StringBuilder();
                if (worker != null) {
                    for (StackTraceElement e : worker.getStackTrace()) {
                        stack.append("\n\tat ").append(e);
                    }
                }
                LOG.error("The reader's worker thread did not end within {} ms of its connections being closed; "
                        + "it is left behind as a daemon thread that delivers nothing more. Its stack:{}",
                        CLOSE_LIMIT.toMillis(), stack);
            }
            return;
        }
        closeConnections();
    }

    /** Waits for the worker at most {@code limit}; an interrupt (Flink repeats them while it cancels) does not cut it short. */
    private boolean awaitWorker(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return thread.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Closes the stream and the session once, from whichever thread gets here first. */
    private void closeConnections() {
        if (connectionsClosed.getAndSet(true)) {
            return;
        }
        ChangeStream<P> s = stream;
        if (s != null) {
            s.close();
        }
        CatalogSession<P, M> open = sessionInUse;
        if (open != null) {
            open.close();
        }
    }
}
