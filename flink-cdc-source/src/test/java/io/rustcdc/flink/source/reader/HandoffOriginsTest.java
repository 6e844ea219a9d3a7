package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TablePlan;
import io.rustcdc.flink.source.split.TestPosition;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The handoff's check that the chunks of a table added while the stream runs come from one table: a
 * chunk read from a table created under the name after the table's first chunks fails the source,
 * whether or not the stream showed the replacement.
 */
class HandoffOriginsTest {
    private static final Object[] TEN = {10L};
    private static final Object[] TWENTY = {20L};

    @Test
    void aChunkOfATableBeingAddedReadFromAnotherTableFailsTheSource() {
        Handoff<TestPosition, HashSet<Long>> adding = new Handoff<>(new HandoffTest.FakeConnector(), List.of(),
                List.of(TablePlan.start(HandoffTest.T, HandoffTest.KEY)), false);
        adding.addChunk(chunk(0, null, TEN, 5L, -1L), false);
        adding.addChunk(chunk(1, TEN, TWENTY, 5L, -1L), false);
        assertThatThrownBy(() -> adding.addChunk(chunk(2, TWENTY, null, 5L, -2L), true))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                .hasMessageContaining("Table s.t was replaced while its snapshot was read")
                .hasMessageContaining("chunk 0 from table 1, chunk 2 from table 2")
                .hasMessageContaining("Start the source without state");
    }

    @Test
    void chunksReadBeforeARestoreAreTheTableTheNextAreComparedWith() {
        Handoff<TestPosition, HashSet<Long>> restored = new Handoff<>(new HandoffTest.FakeConnector(),
                List.of(chunk(0, null, TEN, 5L, -1L)),
                List.of(TablePlan.start(HandoffTest.T, HandoffTest.KEY).after(TEN)), false);
        assertThatThrownBy(() -> restored.addChunk(chunk(1, TEN, null, 5L, -2L), true))
                .hasMessageContaining("chunk 0 from table 1, chunk 1 from table 2");
    }

    @Test
    void theChunksOfASnapshottedTableFromTwoTablesFailTheStreamsStart() {
        assertThatThrownBy(() -> new Handoff<>(new HandoffTest.FakeConnector(),
                List.of(chunk(0, null, TEN, 5L, -1L), chunk(1, TEN, null, 5L, -2L)), List.of(), false))
                .hasMessageContaining("Table s.t was replaced while its snapshot was read");
    }

    @Test
    void aTableReadAgainMayComeFromAnotherTableThanBefore() {
        Handoff<TestPosition, HashSet<Long>> handoff = new Handoff<>(new HandoffTest.FakeConnector(),
                List.of(chunk(0, null, TEN, 5L, -1L), chunk(1, TEN, null, 5L, -1L)), List.of(), false);
        handoff.rereadTable(HandoffTest.T, HandoffTest.KEY);
        handoff.addChunk(chunk(0, null, TEN, 7L, -2L), false);
        handoff.addChunk(chunk(1, TEN, null, 7L, -2L), true);
        assertThat(handoff.remaining()).hasSize(2);
    }

    @Test
    void chunksWhoseMarksNameNoTableAreComparedWithNothing() {
        Handoff<TestPosition, HashSet<Long>> adding = new Handoff<>(new HandoffTest.FakeConnector(), List.of(),
                List.of(TablePlan.start(HandoffTest.T, HandoffTest.KEY)), false);
        adding.addChunk(chunk(0, null, TEN, 5L), false);
        adding.addChunk(chunk(1, TEN, null, 5L, -2L), true);
        assertThat(adding.remaining()).hasSize(2);
    }

    private static ChunkSplit<HashSet<Long>> chunk(int index, Object[] after, Object[] upTo, Long... mark) {
        return ChunkSplit.<HashSet<Long>>of(HandoffTest.T, HandoffTest.KEY, index, after, upTo)
                .finished(new HashSet<>(Set.of(mark)));
    }
}
