package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TestConnector;
import io.rustcdc.flink.source.split.TestKeyOrder;
import io.rustcdc.flink.source.split.TestPosition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javax.annotation.Nullable;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A chunk's rows stream from the connector's read to Flink's output, at most {@link
 * ReaderWorker#MAX_ROWS_HELD} of them held at a time whatever the chunk's size, and one call of
 * {@code pollNext} emits a chunk whole, so a checkpoint (taken between two calls) holds each chunk
 * either unread or read with its mark. The connector here only counts: what is tested is the
 * reader's buffering, not a database.
 */
@Timeout(60)
class ChunkStreamingTest {
    static final TableId T = TableId.of("d", "s", "t");
    static final RowType TYPE = RowType.of(List.of("id"), List.of(ValueType.of(ValueKind.BIGINT)));
    static final ChunkKey KEY = ChunkKey.restored(List.of("id"), List.of(ValueType.of(ValueKind.BIGINT)),
            TestKeyOrder.ASCENDING);
    static final RowShape SHAPE = RowShape.of("s", "t", List.of(RowShape.Column.of("id", "bigint", false)), List.of("id"));

    @Test
    void aChunkOfManyTimesTheRowsTheReaderHoldsStreamsAndIsEmittedInOneCall() throws Exception {
        long rows = 25L * ReaderWorker.MAX_ROWS_HELD;
        CountingConnector connector = new CountingConnector((after, out, session) -> {
            for (long i = 0; i < rows; i++) {
                out.accept(read(i));
            }
        });
        try (Harness h = new Harness(connector)) {
            h.reader.addSplits(List.of(chunk(0, null, null)));
            InputStatus status = h.pollUntilEmitted();
            assertThat(status).isEqualTo(InputStatus.MORE_AVAILABLE);
            assertThat(h.output.collected.get()).as("rows emitted by the call that emitted the chunk").isEqualTo(rows);
            assertThat(connector.maxHeld.get()).as("rows read but not yet emitted, at most")
                    .isLessThanOrEqualTo(ReaderWorker.MAX_ROWS_HELD).isLessThan(rows);
            assertThat(finished(h.reader.snapshotState(1))).as("the chunk in the next checkpoint, with its mark")
                    .hasSize(1);
        }
    }

    @Test
    void aCheckpointBetweenTwoCallsHoldsEachChunkUnreadOrWhole() throws Exception {
        int perChunk = 3 * ReaderWorker.MAX_ROWS_HELD + 7;
        CountingConnector connector = new CountingConnector((after, out, session) -> {
            long first = after == null ? 0 : (Long) after[0];
            for (long i = 1; i <= perChunk; i++) {
                out.accept(read(first + i));
            }
        });
        try (Harness h = new Harness(connector)) {
            h.reader.addSplits(List.of(chunk(0, null, new Object[] {(long) perChunk}),
                    chunk(1, new Object[] {(long) perChunk}, null)));
            long checkpoint = 0;
            while (h.output.collected.get() < 2L * perChunk) {
                h.awaitAvailable();
                h.reader.pollNext(h.output);
                List<CdcSplit> state = h.reader.snapshotState(++checkpoint);
                // a chunk with its mark is emitted whole; one without holds nothing emitted
                assertThat(h.output.collected.get()).isEqualTo((long) perChunk * finished(state).size());
            }
            assertThat(finished(h.reader.snapshotState(++checkpoint))).hasSize(2);
            assertThat(connector.maxHeld.get()).isLessThanOrEqualTo(ReaderWorker.MAX_ROWS_HELD);
        }
    }

    @Test
    void aReadThatFailsAfterSomeRowsFailsTheReaderAndLeavesTheChunkUnread() throws Exception {
        CountingConnector connector = new CountingConnector((after, out, session) -> {
            for (long i = 0; i < 3 * ReaderWorker.CHUNK_BATCH; i++) {
                out.accept(read(i));
            }
            throw new CdcException(CdcException.Kind.CONNECTION, "The connection to the test database was lost");
        });
        try (Harness h = new Harness(connector)) {
            h.reader.addSplits(List.of(chunk(0, null, null)));
            assertThatThrownBy(h::pollUntilEmitted).hasMessageContaining("The connection to the test database was lost");
            assertThat(finished(h.reader.snapshotState(1))).as("the chunk, still to be read").isEmpty();
            assertThat(h.reader.snapshotState(1)).hasSize(1);
        }
    }

    @Test
    void anInterruptEndsTheWaitForAChunksRowsAndCloseEndsABlockedRead() throws Exception {
        AtomicBoolean closed = new AtomicBoolean();
        CountingConnector connector = new CountingConnector((after, out, session) -> {
            for (long i = 0; i < ReaderWorker.CHUNK_BATCH; i++) {
                out.accept(read(i));
            }
            // a database call that an interrupt does not end, only closing its connection
            while (!session.closed.get()) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException ignored) {
                    // as such a call does
                }
            }
            closed.set(true);
            throw new CdcException(CdcException.Kind.CONNECTION, "closed");
        });
        Harness h = new Harness(connector);
        h.reader.addSplits(List.of(chunk(0, null, null)));
        CompletableFuture<Object> polling = new CompletableFuture<>();
        Thread task = new Thread(() -> {
            try {
                while (h.output.collected.get() == 0) {
                    h.reader.pollNext(h.output);
                }
                h.reader.pollNext(h.output); // waits for the rest of the chunk
                polling.complete(null);
            } catch (Throwable t) {
                polling.complete(t);
            }
        });
        task.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!(h.output.collected.get() == ReaderWorker.CHUNK_BATCH && task.getState() == Thread.State.TIMED_WAITING)) {
            assertThat(System.nanoTime()).as("the task thread waiting for the chunk's rows").isLessThan(deadline);
            Thread.sleep(5);
        }
        task.interrupt();
        assertThat(polling.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        long start = System.nanoTime();
        h.close();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("close() of a reader whose read is blocked")
                .isLessThan(ReaderWorker.INTERRUPT_GRACE.plus(ReaderWorker.CLOSE_LIMIT));
        assertThat(closed.get()).as("the blocked read ended by closing its session").isTrue();
    }

    private static ChunkSplit<Long> chunk(int index, @Nullable Object[] after, @Nullable Object[] upTo) {
        return ChunkSplit.of(T, KEY, index, after, upTo);
    }

    private static List<ChunkSplit<?>> finished(List<CdcSplit> state) {
        List<ChunkSplit<?>> finished = new ArrayList<>();
        for (CdcSplit split : state) {
            if (split instanceof ChunkSplit<?> c && c.mark() != null) {
                finished.add(c);
            }
        }
        return finished;
    }

    private static ChangeEvent read(long id) {
        return ChangeEvent.builder(Op.READ, T, SourceInfo.snapshot("counting", null)).after(Row.of(TYPE, id)).build();
    }

    /** The rows of one chunk read, given to {@code out}. */
    interface ChunkRows {
        void read(@Nullable Object[] after, Consumer<ChangeEvent> out, CountingSession session);
    }

    /** A connector whose chunk reads produce rows and count how many were read and not yet emitted. */
    static final class CountingConnector extends TestConnector {
        private static final long serialVersionUID = 1L;
        final transient ChunkRows rows;
        final transient AtomicLong produced = new AtomicLong();
        final transient AtomicLong maxHeld = new AtomicLong();
        transient AtomicLong collected;

        CountingConnector(ChunkRows rows) {
            this.rows = rows;
        }

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public CatalogSession<TestPosition, Long> openSession() {
            return new CountingSession(this);
        }

        @Override
        public ChangeStream<TestPosition> openStream(TestPosition from, TableFilter filter) {
            throw new UnsupportedOperationException();
        }

    }

    static final class CountingSession extends ChunkOnlySession<Long> {
        final CountingConnector connector;
        final AtomicBoolean closed = new AtomicBoolean();
        /** What {@link #bytesRead} says: a chunk's rows may count bytes here as they are read. */
        long bytes;

        CountingSession(CountingConnector connector) {
            this.connector = connector;
        }

        @Override
        public TableDescription describe(TableId table) {
            return TableDescription.of(table, SHAPE, TYPE);
        }

        @Override
        public Long readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
                @Nullable Object[] upTo, Consumer<ChangeEvent> out) {
            connector.rows.read(after, row -> {
                long held = connector.produced.incrementAndGet() - connector.collected.get();
                connector.maxHeld.accumulateAndGet(held, Math::max);
                out.accept(row);
            }, this);
            return 7L;
        }

        @Override
        public long bytesRead() {
            return bytes;
        }

        @Override
        public void close() {
            closed.set(true);
        }
    }

    /** A reader of the counting connector, as a task thread drives it. */
    static final class Harness implements AutoCloseable {
        final CountingOutput output = new CountingOutput();
        final SourceReader<ChangeEvent, CdcSplit> reader;
        private boolean closed;

        Harness(CountingConnector connector) {
            this(connector, new Context());
        }

        Harness(CountingConnector connector, Context context) {
            connector.collected = output.collected;
            reader = CdcSource.builder(connector).includeTables("s.t").build().createReader(context);
            reader.start();
        }

        void awaitAvailable() throws Exception {
            reader.isAvailable().get(20, TimeUnit.SECONDS);
        }

        /** Polls until something was emitted; the status of that call. */
        InputStatus pollUntilEmitted() throws Exception {
            while (true) {
                awaitAvailable();
                InputStatus status = reader.pollNext(output);
                if (output.collected.get() > 0) {
                    return status;
                }
            }
        }

        @Override
        public void close() throws Exception {
            if (!closed) {
                closed = true;
                reader.close();
            }
        }
    }

    static final class CountingOutput implements ReaderOutput<ChangeEvent> {
        final AtomicLong collected = new AtomicLong();

        @Override
        public void collect(ChangeEvent record) {
            collected.incrementAndGet();
        }

        @Override
        public void collect(ChangeEvent record, long timestamp) {
            collected.incrementAndGet();
        }

        @Override
        public void emitWatermark(Watermark watermark) {}

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}

        @Override
        public SourceOutput<ChangeEvent> createOutputForSplit(String splitId) {
            return this;
        }

        @Override
        public void releaseOutputForSplit(String splitId) {}
    }

    static final class Context implements SourceReaderContext {
        private final SourceReaderMetricGroup metrics;
        /** The events the reader sent to the enumerator. */
        final List<SourceEvent> sent = new java.util.concurrent.CopyOnWriteArrayList<>();

        Context() {
            this(UnregisteredMetricsGroup.createSourceReaderMetricGroup());
        }

        Context(SourceReaderMetricGroup metrics) {
            this.metrics = metrics;
        }

        @Override
        public SourceReaderMetricGroup metricGroup() {
            return metrics;
        }

        @Override
        public Configuration getConfiguration() {
            return new Configuration();
        }

        @Override
        public String getLocalHostName() {
            return "localhost";
        }

        @Override
        public int getIndexOfSubtask() {
            return 0;
        }

        @Override
        public void sendSplitRequest() {}

        @Override
        public void sendSourceEventToCoordinator(SourceEvent event) {
            sent.add(event);
        }

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            return SimpleUserCodeClassLoader.create(getClass().getClassLoader());
        }
    }
}
