package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TablePlan;
import io.rustcdc.flink.source.split.TestKeyOrder;
import io.rustcdc.flink.source.split.TestPosition;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The handoff finds a key's chunk in the order of the chunk key, which is the connector's: chunks a
 * database ordering keys descending would cut are searched in that order, not in Java's.
 */
class HandoffKeyOrderTest {
    private static final TableId T = TableId.of("d", "s", "t");
    private static final RowType TYPE = RowType.of(List.of("id"), List.of(ValueType.of(ValueKind.BIGINT)));
    private static final ChunkKey DESCENDING = ChunkKey.restored(List.of("id"), List.of(ValueType.of(ValueKind.BIGINT)),
            TestKeyOrder.DESCENDING);
    private static final TestPosition AT5 = new TestPosition(5);

    /** In descending order: (+inf, 20] reflects position 5, (20, 10] does not, (10, -inf) does. */
    private final Handoff<TestPosition, HashSet<Long>> handoff = new Handoff<>(new HandoffTest.FakeConnector(), List.of(
            ChunkSplit.<HashSet<Long>>of(T, DESCENDING, 0, null, new Object[] {20L}).finished(new HashSet<>(Set.of(5L))),
            ChunkSplit.<HashSet<Long>>of(T, DESCENDING, 1, new Object[] {20L}, new Object[] {10L}).finished(new HashSet<>()),
            ChunkSplit.<HashSet<Long>>of(T, DESCENDING, 2, new Object[] {10L}, null).finished(new HashSet<>(Set.of(5L)))),
            List.of(), false);

    @Test
    void aKeysChunkIsFoundInTheConnectorsOrder() {
        assertThat(handoff.decide(insert(30), AT5)).as("in the first chunk, which reflects it").isNull();
        assertThat(handoff.decide(insert(20), AT5)).as("the first chunk's last key").isNull();
        assertThat(handoff.decide(insert(15), AT5)).as("in the middle chunk, which does not").isNotNull();
        assertThat(handoff.decide(insert(10), AT5)).as("the middle chunk's last key").isNotNull();
        assertThat(handoff.decide(insert(3), AT5)).as("in the last chunk, which reflects it").isNull();
    }

    /**
     * A key column retyped while the table was snapshotted (MySQL's {@code MODIFY id VARCHAR(20)}): the stream's keys
     * are Strings, the chunk bounds Longs. Found by an adversarial probe: the order's ClassCastException restarted the
     * task forever; now the source fails, naming the table and both types.
     */
    @Test
    void aKeyOfAnotherTypeThanTheChunkBoundsFailsNamingTheTable() {
        RowType retyped = RowType.of(List.of("id"), List.of(ValueType.of(ValueKind.TEXT)));
        ChangeEvent change = ChangeEvent.builder(Op.INSERT, T, SourceInfo.stream("x", AT5, null))
                .after(Row.of(retyped, "15")).build();
        assertThatThrownBy(() -> handoff.decide(change, AT5)).isInstanceOfSatisfying(CdcException.class,
                e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                .hasMessageContaining("The key [id] of a change of table s.t reads as (String), but the table's snapshot "
                        + "chunks were planned with keys of (Long)")
                .hasMessageContaining("Start the job without its state");
    }

    /**
     * The same for a table being added: a change of a retyped key is held before the table's first chunk arrives,
     * and the chunk's arrival places it (found by a review: the ClassCastException escaped there).
     */
    @Test
    void aHeldKeyOfAnotherTypeThanTheFirstChunkFailsNamingTheTable() {
        Handoff<TestPosition, HashSet<Long>> adding = new Handoff<>(new HandoffTest.FakeConnector(), List.of(),
                List.of(TablePlan.start(HandoffTest.T, HandoffTest.KEY)), false);
        RowType retyped = RowType.of(List.of("id", "v"), List.of(ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT)));
        ChangeEvent change = ChangeEvent.builder(Op.INSERT, HandoffTest.T, SourceInfo.stream("x", new TestPosition(7), null))
                .after(Row.of(retyped, "15", "v")).build();
        assertThat(adding.decide(change, new TestPosition(7))).as("held: no chunk read yet").isNull();
        ChunkSplit<HashSet<Long>> first = ChunkSplit.<HashSet<Long>>of(HandoffTest.T, HandoffTest.KEY, 0, null,
                new Object[] {10L}).finished(new HashSet<>(Set.of(5L)));
        assertThatThrownBy(() -> adding.addChunk(first, false)).isInstanceOfSatisfying(CdcException.class,
                e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                .hasMessageContaining("reads as (String), but the table's snapshot chunks were planned with keys of (Long)");
    }

    private static ChangeEvent insert(long id) {
        return ChangeEvent.builder(Op.INSERT, T, SourceInfo.stream("x", AT5, null)).after(Row.of(TYPE, id)).build();
    }
}
