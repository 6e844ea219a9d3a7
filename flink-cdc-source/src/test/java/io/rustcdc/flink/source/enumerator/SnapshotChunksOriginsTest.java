package io.rustcdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.FinalFailure;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TestKeyOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The enumerator's check, as each chunk is reported read, that a table's chunks come from one table:
 * a chunk of a table replaced under its name since its first chunk fails the job, final (a restore
 * would read the same two tables), snapshot-only sources included.
 */
class SnapshotChunksOriginsTest {
    private static final TableId T = TableId.of("db", "s", "t");
    private static final ChunkKey KEY = ChunkKey.restored(List.of("id"), List.of(ValueType.of(ValueKind.BIGINT)),
            TestKeyOrder.ASCENDING);

    /** Marks whose hundreds name the table read. */
    private final SnapshotChunks<Long> chunks = new SnapshotChunks<>(EnumeratorState.empty(), m -> "relation " + m / 100);

    @Test
    void aChunkReadFromAnotherTableUnderTheNameFailsTheJobFinally() {
        read(chunk(0, null, 10L), 101L);
        read(chunk(1, 10L, 20L), 102L);
        assertThat(chunks.finished()).hasSize(2);
        ChunkSplit<Long> third = chunk(2, 20L, null);
        chunks.assigned(third);
        assertThatThrownBy(() -> chunks.read(third.finished(201L)))
                .isInstanceOfSatisfying(FinalFailure.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                .hasMessageContaining("Table s.t was replaced while its snapshot was read")
                .hasMessageContaining("chunk 0 from relation 1, chunk 2 from relation 2");
        assertThat(chunks.finished()).as("the chunk is not kept for a handoff").hasSize(2);
    }

    @Test
    void aReadChunkHandedBackIsCheckedToo() {
        read(chunk(0, null, 10L), 101L);
        ChunkSplit<Long> second = chunk(1, 10L, null);
        chunks.assigned(second);
        assertThatThrownBy(() -> chunks.returned(second.finished(201L), second)).isInstanceOf(FinalFailure.class);
    }

    @Test
    void aTableWhoseSnapshotWasStoppedStartsAgainFromAnyTable() {
        read(chunk(0, null, 10L), 101L);
        chunks.drop(T);
        chunks.undrop(T);
        read(chunk(0, null, 10L), 201L);
        read(chunk(1, 10L, null), 202L);
        assertThat(chunks.finished()).hasSize(2);
    }

    @Test
    void restoredChunksAreTheTableTheNextChunksAreComparedWith() {
        SnapshotChunks<Long> restored = new SnapshotChunks<>(new EnumeratorState<>(true, null, null,
                java.util.Set.of(T), List.of(), List.of(), List.of(), List.of(chunk(0, null, 10L).finished(101L)),
                EnumeratorState.StreamStatus.NOT_CREATED, null), m -> "relation " + m / 100);
        ChunkSplit<Long> second = chunk(1, 10L, null);
        restored.assigned(second);
        assertThatThrownBy(() -> restored.read(second.finished(201L))).isInstanceOf(FinalFailure.class)
                .hasMessageContaining("chunk 0 from relation 1, chunk 1 from relation 2");
    }

    private void read(ChunkSplit<Long> chunk, long mark) {
        chunks.assigned(chunk);
        chunks.read(chunk.finished(mark));
    }

    private static ChunkSplit<Long> chunk(int index, Long after, Long upTo) {
        return ChunkSplit.of(T, KEY, index, after == null ? null : new Object[] {after},
                upTo == null ? null : new Object[] {upTo});
    }
}
