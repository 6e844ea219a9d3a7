package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.enumerator.ChunksFinishedEvent;
import io.rustcdc.flink.source.enumerator.ChunksRestoredEvent;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkSplit;
import java.util.List;
import org.apache.flink.api.connector.source.SourceReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reader restored from a checkpoint tells the enumerator, before it starts (Flink registers it with the
 * enumerator in between), which chunks it reads again and which it had read: the enumerator, which lives
 * on when a reader fails over, may have had the first reported read since, with marks those reads replace.
 */
@Timeout(60)
class RestoredChunksTest {
    @Test
    void aRestoredReaderSaysWhichChunksItReadsAgainBeforeItStarts() throws Exception {
        ChunkStreamingTest.CountingConnector connector = new ChunkStreamingTest.CountingConnector((after, out, s) -> {});
        ChunkStreamingTest.Context context = new ChunkStreamingTest.Context();
        SourceReader<ChangeEvent, CdcSplit> reader = CdcSource.builder(connector).includeTables("s.t").build()
                .createReader(context);
        try {
            ChunkSplit<Long> unread = ChunkSplit.of(ChunkStreamingTest.T, ChunkStreamingTest.KEY, 0, null,
                    new Object[] {10L});
            ChunkSplit<Long> read = ChunkSplit.<Long>of(ChunkStreamingTest.T, ChunkStreamingTest.KEY, 1,
                    new Object[] {10L}, null).finished(7L);
            reader.addSplits(List.of(unread, read));
            assertThat(context.sent).hasSize(2);
            assertThat(((ChunksRestoredEvent<?>) context.sent.get(0)).chunks()).extracting(ChunkSplit::splitId)
                    .containsExactly(unread.splitId());
            assertThat(((ChunksFinishedEvent<?>) context.sent.get(1)).chunks()).extracting(c -> (Object) c.mark())
                    .containsExactly(7L);

            reader.start();
            reader.addSplits(List.of(ChunkSplit.of(ChunkStreamingTest.T, ChunkStreamingTest.KEY, 2, null, null)));
            assertThat(context.sent).as("a chunk assigned is no chunk read again")
                    .noneMatch(e -> e instanceof ChunksRestoredEvent<?> r && r.chunks().get(0).index() == 2);
        } finally {
            reader.close();
        }
    }
}
