package io.rustcdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TestKeyOrder;
import io.rustcdc.flink.source.split.TestPosition;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A table whose chunks were read at different moments: one chunk's handoff may end at the stream's
 * start while another's ends later (seen on Oracle MySQL, whose positions with equal GTID sets compare
 * equal). The table then keeps all its chunks, or a changed key of the first one finds no chunk.
 */
class HandoffChunksTest {
    private static final ChunkKey KEY = ChunkKey.restored(List.of("id"), List.of(ValueType.of(ValueKind.BIGINT)),
            TestKeyOrder.ASCENDING);
    private static final TableId A = TableId.of("d", "s", "a");
    private static final TableId B = TableId.of("d", "s", "b");

    @Test
    void aTableIsKeptWholeWhenAnyOfItsChunksMayReflectAChangeAfterTheStart() {
        RecordingConnector connector = new RecordingConnector(); // handoff ends at mark + 1
        List<ChunkSplit<Long>> read = List.of(
                ChunkSplit.<Long>of(A, KEY, 0, null, new Object[] {10L}).finished(4L), // ends at 5: the start
                ChunkSplit.<Long>of(A, KEY, 1, new Object[] {10L}, null).finished(9L), // ends at 10
                ChunkSplit.<Long>of(B, KEY, 0, null, null).finished(3L)); // ends at 4, before the start

        List<ChunkSplit<Long>> handoff = HandoffChunks.of(connector, read, new TestPosition(5));

        assertThat(handoff).containsExactly(read.get(0), read.get(1));
    }

    @Test
    void noChunkIsKeptWhenNoneMayReflectAChangeAfterTheStart() {
        RecordingConnector connector = new RecordingConnector();
        List<ChunkSplit<Long>> read = List.of(
                ChunkSplit.<Long>of(A, KEY, 0, null, new Object[] {10L}).finished(4L),
                ChunkSplit.<Long>of(A, KEY, 1, new Object[] {10L}, null).finished(2L));

        assertThat(HandoffChunks.of(connector, read, new TestPosition(5))).isEmpty();
    }

    @Test
    void aTableWhoseChunksDoNotCoverItsKeysIsLeftOut() {
        RecordingConnector connector = new RecordingConnector();
        List<ChunkSplit<Long>> read = List.of(
                ChunkSplit.<Long>of(A, KEY, 1, new Object[] {10L}, new Object[] {20L}).finished(9L), // a stopped table's
                ChunkSplit.<Long>of(B, KEY, 0, null, new Object[] {10L}).finished(8L),
                ChunkSplit.<Long>of(B, KEY, 1, new Object[] {10L}, null).finished(9L));

        assertThat(HandoffChunks.of(connector, read, new TestPosition(5))).containsExactly(read.get(1), read.get(2));
    }
}
