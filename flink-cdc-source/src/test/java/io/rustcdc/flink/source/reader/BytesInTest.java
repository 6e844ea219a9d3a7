package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.enumerator.TablesAddedEvent;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import io.rustcdc.flink.source.split.TestConnector;
import io.rustcdc.flink.source.split.TestPosition;
import io.rustcdc.flink.testing.Poll;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.OperatorIOMetricGroup;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Flink's {@code numBytesIn} of a reader is what the connector says its session read for the chunks
 * and its stream read, added up as they grow: every byte once, also across chunks of one session.
 */
@Timeout(60)
class BytesInTest {

    @Test
    void theChunksRowsBytesAreCountedAsTheSessionReadsThem() throws Exception {
        int rows = 3 * ReaderWorker.CHUNK_BATCH + 5;
        ChunkStreamingTest.CountingConnector connector = new ChunkStreamingTest.CountingConnector(
                (after, out, session) -> {
                    for (int i = 0; i < rows; i++) {
                        session.bytes += 1 + i % 7; // read, then handed on
                        out.accept(read(i));
                    }
                });
        long perChunk = 0;
        for (int i = 0; i < rows; i++) {
            perChunk += 1 + i % 7;
        }
        RecordingMetrics metrics = new RecordingMetrics();
        try (ChunkStreamingTest.Harness h = new ChunkStreamingTest.Harness(connector,
                new ChunkStreamingTest.Context(metrics))) {
            h.reader.addSplits(List.of(ChunkSplit.of(ChunkStreamingTest.T, ChunkStreamingTest.KEY, 0, null,
                    new Object[] {10L}), ChunkSplit.of(ChunkStreamingTest.T, ChunkStreamingTest.KEY, 1,
                    new Object[] {10L}, null)));
            while (h.output.collected.get() < 2L * rows) {
                h.awaitAvailable();
                h.reader.pollNext(h.output);
            }
            // both chunks on one session, whose total goes on from the first chunk's
            assertThat(metrics.bytesIn.getCount()).isEqualTo(2 * perChunk);
        }
    }

    @Test
    void theStreamsBytesAreCountedAsItReadsThem() throws Exception {
        Counting connector = new Counting(10, 17);
        RecordingMetrics metrics = new RecordingMetrics();
        ChunkStreamingTest.Context context = new ChunkStreamingTest.Context(metrics);
        SourceReader<ChangeEvent, CdcSplit> reader = CdcSource.builder(connector).includeTables("d.s.*").build()
                .createReader(context);
        ChunkStreamingTest.CountingOutput output = new ChunkStreamingTest.CountingOutput();
        try {
            reader.start();
            reader.addSplits(List.of(StreamSplit.of(new TestPosition(0), List.of(), Set.of(), new SchemaHistory())));
            reader.handleSourceEvents(new TablesAddedEvent(List.of(), false));
            Poll.until("the stream's 170 bytes in numBytesIn", Duration.ofSeconds(20), () -> {
                reader.pollNext(output);
                return metrics.bytesIn.getCount() == 170;
            });
            Thread.sleep(100); // polls that return nothing add nothing
            assertThat(metrics.bytesIn.getCount()).isEqualTo(170);
        } finally {
            reader.close();
        }
    }

    private static ChangeEvent read(long id) {
        return ChangeEvent.builder(io.rustcdc.flink.source.model.Op.READ, ChunkStreamingTest.T,
                io.rustcdc.flink.source.model.SourceInfo.snapshot("counting", null))
                .after(io.rustcdc.flink.source.model.Row.of(ChunkStreamingTest.TYPE, id)).build();
    }

    /** A connector whose stream moves {@code records} times, reading {@code bytesEach} bytes each time. */
    static final class Counting extends TestConnector {
        private static final long serialVersionUID = 1L;
        private final int records;
        private final long bytesEach;

        Counting(int records, long bytesEach) {
            this.records = records;
            this.bytesEach = bytesEach;
        }

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public CatalogSession<TestPosition, Long> openSession() {
            throw new UnsupportedOperationException("no chunk is read here");
        }

        @Override
        public ChangeStream<TestPosition> openStream(TestPosition from, TableFilter filter) {
            AtomicLong polled = new AtomicLong();
            return new ChangeStream<>() {
                @Override
                public StreamRecord<TestPosition> poll(Duration timeout) throws InterruptedException {
                    if (polled.get() == records) {
                        Thread.sleep(Math.min(timeout.toMillis(), 20));
                        return null;
                    }
                    return StreamRecord.progress(new TestPosition(polled.incrementAndGet()));
                }

                @Override
                public long bytesRead() {
                    return polled.get() * bytesEach;
                }

                @Override
                public void confirm(TestPosition position) {}

                @Override
                public void close() {}
            };
        }
    }

    /** A reader's metric group whose {@code numBytesIn} counts; everything else is dropped. */
    static final class RecordingMetrics extends UnregisteredMetricsGroup implements SourceReaderMetricGroup {
        final SimpleCounter bytesIn = new SimpleCounter();
        private final OperatorIOMetricGroup io = new IO();

        @Override
        public Counter getNumRecordsInErrorsCounter() {
            return new SimpleCounter();
        }

        @Override
        public void setPendingBytesGauge(Gauge<Long> gauge) {}

        @Override
        public void setPendingRecordsGauge(Gauge<Long> gauge) {}

        @Override
        public OperatorIOMetricGroup getIOMetricGroup() {
            return io;
        }

        private final class IO extends UnregisteredMetricsGroup implements OperatorIOMetricGroup {
            private final SimpleCounter recordsIn = new SimpleCounter();
            private final SimpleCounter recordsOut = new SimpleCounter();
            private final SimpleCounter bytesOut = new SimpleCounter();

            @Override
            public Counter getNumRecordsInCounter() {
                return recordsIn;
            }

            @Override
            public Counter getNumRecordsOutCounter() {
                return recordsOut;
            }

            @Override
            public Counter getNumBytesInCounter() {
                return bytesIn;
            }

            @Override
            public Counter getNumBytesOutCounter() {
                return bytesOut;
            }
        }
    }
}
