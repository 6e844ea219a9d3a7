package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.SinkGuarantee;
import io.rustcdc.flink.source.enumerator.StreamOwnerEvent;
import io.rustcdc.flink.source.enumerator.TablesAcceptedEvent;
import io.rustcdc.flink.source.enumerator.TablesAddedEvent;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import io.rustcdc.flink.source.split.TablePlan;
import io.rustcdc.flink.source.split.TestConnector;
import io.rustcdc.flink.source.split.TestPosition;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.SourceReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reader handed the stream split (restored or assigned) tells the enumerator the tables its split
 * captures and streams only once the enumerator has answered with the tables added since: a change
 * of a table the answer brings back must not have been left out meanwhile.
 */
@Timeout(60)
class StreamStartTest {
    private static final TableId A = TableId.of("d", "s", "a");
    private static final TableId B = TableId.of("d", "s", "b");
    private static final TestPosition FROM = new TestPosition(40);

    @Test
    void aRestoredStreamWaitsForTheEnumeratorsAnswerThenStreamsFromItsPosition() throws Exception {
        StreamingConnector connector = new StreamingConnector();
        ChunkStreamingTest.Context context = new ChunkStreamingTest.Context();
        SourceReader<ChangeEvent, CdcSplit> reader = CdcSource.builder(connector).includeTables("d.s.*")
                .sinkGuarantee(SinkGuarantee.AT_LEAST_ONCE).build().createReader(context);
        try {
            reader.addSplits(List.of(StreamSplit.of(FROM, List.of(), Set.of(A), new SchemaHistory())));
            reader.start();
            assertThat(context.sent).hasSize(1);
            StreamOwnerEvent owner = (StreamOwnerEvent) context.sent.get(0);
            assertThat(owner.captured()).containsExactly(A);
            assertThat(owner.restored()).isTrue();
            Thread.sleep(200);
            assertThat(connector.openedFrom).as("no stream before the answer").isNotDone();

            reader.handleSourceEvents(new TablesAddedEvent(List.of(TablePlan.start(B, ChunkStreamingTest.KEY)), true));
            assertThat(connector.openedFrom.get(10, TimeUnit.SECONDS)).isEqualTo(FROM);
            assertThat(context.sent.get(1)).isInstanceOf(TablesAcceptedEvent.class);
            assertThat(((TablesAcceptedEvent) context.sent.get(1)).tables()).containsExactly(B);
        } finally {
            reader.close();
        }
    }

    @Test
    void anAssignedStreamSaysSoAndAnEmptyAnswerStartsIt() throws Exception {
        StreamingConnector connector = new StreamingConnector();
        ChunkStreamingTest.Context context = new ChunkStreamingTest.Context();
        SourceReader<ChangeEvent, CdcSplit> reader = CdcSource.builder(connector).includeTables("d.s.*").build()
                .createReader(context);
        try {
            reader.start();
            reader.addSplits(List.of(StreamSplit.of(FROM, List.of(), Set.of(A), new SchemaHistory())));
            assertThat(((StreamOwnerEvent) context.sent.get(0)).restored()).isFalse();
            reader.handleSourceEvents(new TablesAddedEvent(List.of(), false));
            assertThat(connector.openedFrom.get(10, TimeUnit.SECONDS)).isEqualTo(FROM);
            assertThat(context.sent).as("nothing to accept").hasSize(1);
        } finally {
            reader.close();
        }
    }

    /** A connector whose stream only records where it was opened and never delivers a record. */
    static final class StreamingConnector extends TestConnector {
        private static final long serialVersionUID = 1L;
        final transient CompletableFuture<TestPosition> openedFrom = new CompletableFuture<>();

        @Override
        public String name() {
            return "streaming";
        }

        @Override
        public CatalogSession<TestPosition, Long> openSession() {
            throw new UnsupportedOperationException("no chunk is read here");
        }

        @Override
        public ChangeStream<TestPosition> openStream(TestPosition from, TableFilter filter) {
            openedFrom.complete(from);
            return new ChangeStream<>() {
                @Override
                public StreamRecord<TestPosition> poll(Duration timeout) throws InterruptedException {
                    Thread.sleep(Math.min(timeout.toMillis(), 20));
                    return null;
                }

                @Override
                public void confirm(TestPosition position) {}

                @Override
                public void close() {}
            };
        }

    }
}
