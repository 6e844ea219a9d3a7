package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.LazySession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TablePlan;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The database side of a reader, on a thread of its own: it reads assigned chunks one after
 * another, each whole, or polls the change stream, and puts what it read into the {@link
 * RecordQueue}. Decisions that touch checkpointed state (the handoff, the schema history, positions)
 * are the task thread's, when it emits; the worker only reads.
 */
@Internal
final class ReaderWorker<P extends SourcePosition & Comparable<P>, M extends Serializable> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReaderWorker.class);
    private static final int STREAM_BATCH = 1024;

    private final CdcConnector<P, M> connector;
    private final int chunkSize;
    private final java.util.Deque<TablePlan> tablesToRead = new java.util.concurrent.ConcurrentLinkedDeque<>();
    private final RecordQueue queue;
    private final org.apache.flink.metrics.MetricGroup metrics;
    private volatile long fetchLagMillis = -1;
    private final ExecutorService thread;
    private volatile boolean closed;
    private volatile Throwable failure;
    private final LazySession<P, M> session;
    /**
     * One description per table: it only names the table and its key types to the connector, which
     * describes the table again inside each chunk's read (that is the shape the rows carry).
     */
    private final java.util.Map<io.rustcdc.flink.source.model.TableId, TableDescription> described = new java.util.HashMap<>();
    @Nullable private volatile ChangeStream<P> stream;

    ReaderWorker(CdcConnector<P, M> connector, int chunkSize, RecordQueue queue, String name,
            org.apache.flink.metrics.MetricGroup metrics) {
        this.connector = connector;
        this.session = new LazySession<>(connector);
        this.chunkSize = chunkSize;
        this.queue = queue;
        this.metrics = metrics;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
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
            CatalogSession<P, M> s = session.get();
            TableDescription table = described.computeIfAbsent(chunk.table(), s::describe);
            List<ChangeEvent> rows = new ArrayList<>();
            M mark = s.readChunk(table, chunk.key().columns(), chunk.after(), chunk.upTo(), rows::add);
            queue.put(new ChunkResult<>(chunk.finished(mark), rows, false));
        }));
    }

    /** Snapshots a table added while the stream runs, chunk by chunk between stream batches, from {@code plan}. */
    void addTable(TablePlan plan) {
        tablesToRead.add(plan);
    }

    /** Reads the next chunk of a table being added; true when it was the table's last. */
    private boolean readAddedChunk(TablePlan plan) throws Exception {
        CatalogSession<P, M> s = session.get();
        TableDescription table = described.computeIfAbsent(plan.table(), s::describe);
        Object[] upTo = plan.key().splittable()
                ? s.nextChunkEnd(table, plan.key().columns(), plan.nextAfter(), chunkSize)
                : null;
        List<ChangeEvent> rows = new ArrayList<>();
        M mark = s.readChunk(table, plan.key().columns(), plan.nextAfter(), upTo, rows::add);
        queue.put(new ChunkResult<>(plan.<M>chunk(upTo).finished(mark), rows, true));
        tablesToRead.poll();
        if (upTo != null) {
            tablesToRead.addFirst(plan.after(upTo));
        }
        return upTo == null;
    }

    /** Streams from {@code from}; {@code captured} are the tables snapshotted already (see {@link ChangeStream#captured}). */
    void stream(P from, TableFilter filter, java.util.Set<io.rustcdc.flink.source.model.TableId> captured) {
        java.util.Set<io.rustcdc.flink.source.model.TableId> tables = new java.util.HashSet<>(captured);
        thread.execute(() -> guarded(() -> {
            session.close(); // chunks are done: the stream needs only its own connections, until a table is added
            ChangeStream<P> s = connector.openStream(from, filter);
            s.registerMetrics(metrics.addGroup(connector.name()));
            s.captured(java.util.Set.copyOf(tables));
            stream = s;
            while (!closed) {
                TablePlan added = tablesToRead.peek();
                if (added != null) {
                    if (readAddedChunk(added)) {
                        tables.add(added.table());
                        s.captured(java.util.Set.copyOf(tables));
                    }
                    continue;
                }
                StreamRecord<P> first = s.poll(Duration.ofMillis(200));
                if (first == null) {
                    continue;
                }
                List<StreamRecord<P>> batch = new ArrayList<>();
                batch.add(first);
                StreamRecord<P> next;
                while (batch.size() < STREAM_BATCH && (next = s.poll(Duration.ZERO)) != null) {
                    batch.add(next);
                }
                for (int i = batch.size() - 1; i >= 0; i--) {
                    ChangeEvent e = batch.get(i).event();
                    if (e != null && e.source().commitTime() != null) {
                        fetchLagMillis = System.currentTimeMillis() - e.source().commitTime().toEpochMilli();
                        break;
                    }
                }
                queue.put(batch);
            }
        }));
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

    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("The reader's worker thread did not stop within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ChangeStream<P> s = stream;
        if (s != null) {
            s.close();
        }
        session.close();
    }
}
