package io.rustcdc.flink.source.retry;

import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.TableDescription;
import java.io.Serializable;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A catalogue session that, when a call fails with a transient connection failure, closes its
 * connection, backs off, opens a new one and makes the call again. Every call but {@link #readChunk}
 * only reads or makes what already exists exist, so repeating it is what a restart would do; a chunk
 * read is repeated only while it has handed no row to its consumer, since a row handed on may
 * already be emitted. Not thread-safe, but {@link #close} may be called from any thread.
 */
@Internal
final class RetryingSession<P extends SourcePosition & Comparable<P>, M extends Serializable>
        implements CatalogSession<P, M> {
    private static final Logger LOG = LoggerFactory.getLogger(RetryingSession.class);

    private final CdcConnector<P, M> connector;
    private final Retrier retrier;
    private final String what;
    @Nullable private volatile CatalogSession<P, M> session;
    /** What the sessions discarded after a failure had read ({@link #bytesRead}); the reading thread's. */
    private long closedBytes;

    private RetryingSession(CdcConnector<P, M> connector, Retrier retrier) {
        this.connector = connector;
        this.retrier = retrier;
        this.what = "a " + connector.name() + " catalogue session";
    }

    /** A session whose connection is open, opened with retries. */
    static <P extends SourcePosition & Comparable<P>, M extends Serializable> RetryingSession<P, M> open(
            CdcConnector<P, M> connector, Retrier retrier) {
        RetryingSession<P, M> s = new RetryingSession<>(connector, retrier);
        s.current();
        return s;
    }

    @Override
    public void checkSnapshotPrerequisites(List<TableId> tables) {
        call("checking snapshot prerequisites", s -> {
            s.checkSnapshotPrerequisites(tables);
            return null;
        });
    }

    @Override
    public P prepareStream(List<TableId> tables, boolean fullBeforeImages) {
        return call("preparing the stream", s -> s.prepareStream(tables, fullBeforeImages));
    }

    @Override
    public List<TableId> discoverTables(TableFilter filter) {
        return call("discovering tables", s -> s.discoverTables(filter));
    }

    @Override
    public TableDescription describe(TableId table) {
        return call("describing " + table, s -> s.describe(table));
    }

    @Override
    @Nullable
    public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            int chunkSize) {
        return nextChunkEnd(table, keyColumns, after, chunkSize, null);
    }

    @Override
    @Nullable
    public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            int chunkSize, @Nullable String rowFilter) {
        return call("planning a chunk of " + table.table(),
                s -> s.nextChunkEnd(table, keyColumns, after, chunkSize, rowFilter));
    }

    @Override
    @Nullable
    public String rowFilterProblem(TableDescription table, String rowFilter) {
        return call("checking the row filter of " + table.table(), s -> s.rowFilterProblem(table, rowFilter));
    }

    @Override
    @Nullable
    public String keyMissingFromOldRows(TableId table, List<String> keyColumns) {
        return call("checking the old rows of " + table, s -> s.keyMissingFromOldRows(table, keyColumns));
    }

    @Override
    public M readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, Consumer<ChangeEvent> out) {
        return readChunk(table, keyColumns, after, upTo, null, out);
    }

    @Override
    public M readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
            @Nullable Object[] upTo, @Nullable String rowFilter, Consumer<ChangeEvent> out) {
        while (true) {
            CatalogSession<P, M> s = current();
            long[] handedOn = {0};
            try {
                M mark = s.readChunk(table, keyColumns, after, upTo, rowFilter, e -> {
                    handedOn[0]++;
                    out.accept(e);
                });
                retrier.succeeded();
                return mark;
            } catch (RuntimeException e) {
                discard(s);
                if (handedOn[0] > 0) {
                    if (ConnectionRetry.retries(e)) {
                        LOG.warn("Connection failure of {} while reading a chunk of {}, not retried: {} rows of the chunk "
                                + "are handed on already, so the task fails and restarts from its checkpoint",
                                what, table.table(), handedOn[0]);
                    }
                    throw e;
                }
                backOff("reading a chunk of " + table.table(), e);
            }
        }
    }

    @Override
    public int[] placeKeys(TableId table, List<String> keyColumns, List<ValueType> keyTypes, List<String> keyCollations,
            List<Object[]> bounds, List<Object[]> keys) {
        return call("placing changed keys of " + table + " among its chunks",
                s -> s.placeKeys(table, keyColumns, keyTypes, keyCollations, bounds, keys));
    }

    /** What every session opened so far has read: the count goes on across a reconnect. */
    @Override
    public long bytesRead() {
        CatalogSession<P, M> s = session;
        return closedBytes + (s != null ? s.bytesRead() : 0);
    }

    @Override
    public P currentPosition() {
        return call("reading the current position", CatalogSession::currentPosition);
    }

    private <T> T call(String step, Function<CatalogSession<P, M>, T> call) {
        while (true) {
            CatalogSession<P, M> s = current();
            try {
                T result = call.apply(s);
                retrier.succeeded();
                return result;
            } catch (RuntimeException e) {
                discard(s);
                backOff(step, e);
            }
        }
    }

    /** The open session, opened (with retries) when there is none. */
    private CatalogSession<P, M> current() {
        CatalogSession<P, M> s = session;
        while (s == null) {
            try {
                s = connector.openSession();
            } catch (RuntimeException e) {
                backOff("opening " + what, e);
                continue;
            }
            session = s;
            if (retrier.isClosed()) { // closed while it opened
                discard(s);
                throw new IllegalStateException(what + " is closed");
            }
        }
        return s;
    }

    private void backOff(String step, RuntimeException failure) {
        try {
            retrier.backOff(step.startsWith("opening ") ? step : what + " (" + step + ")", failure);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure;
        }
    }

    private void discard(CatalogSession<P, M> s) {
        if (session == s) {
            session = null;
        }
        closedBytes += s.bytesRead();
        try {
            s.close();
        } catch (RuntimeException e) {
            LOG.debug("Closing a failed session failed", e);
        }
    }

    @Override
    public void close() {
        retrier.close();
        CatalogSession<P, M> s = session;
        session = null;
        if (s != null) {
            s.close();
        }
    }
}
