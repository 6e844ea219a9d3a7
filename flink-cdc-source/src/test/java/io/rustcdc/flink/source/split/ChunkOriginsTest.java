package io.rustcdc.flink.source.split;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The comparison of the tables one table's chunks were read from, by the connector's identity of a mark. */
class ChunkOriginsTest {
    private static final TableId T = TableId.of("d", "s", "t");
    private static final TableId U = TableId.of("d", "s", "u");
    private static final ChunkKey KEY = ChunkKey.restored(List.of("id"), List.of(ValueType.of(ValueKind.BIGINT)),
            TestKeyOrder.ASCENDING);

    /** Marks whose hundreds name the table read ("relation 1" for 100 to 199); a negative mark names none. */
    private final ChunkOrigins<Long> origins = new ChunkOrigins<>(m -> m < 0 ? null : "relation " + m / 100);

    @Test
    void chunksOfOneTableFromTheSameTablePass() {
        assertThatCode(() -> {
            origins.read(chunk(T, 0, 101));
            origins.read(chunk(T, 1, 105));
            origins.read(chunk(U, 0, 201)); // another table has its own
            origins.read(chunk(T, 2, 199));
        }).doesNotThrowAnyException();
    }

    @Test
    void aChunkFromAnotherTableUnderTheNameFailsNamingTheTableTheChunksAndTheRemedy() {
        origins.read(chunk(T, 0, 101));
        origins.read(chunk(T, 1, 102));
        assertThatThrownBy(() -> origins.read(chunk(T, 2, 301)))
                .isInstanceOfSatisfying(CdcException.class, e -> org.assertj.core.api.Assertions.assertThat(e.kind())
                        .isEqualTo(CdcException.Kind.STATE))
                .hasMessageContaining("Table s.t was replaced while its snapshot was read")
                .hasMessageContaining("its chunks come from two tables or were read in two key orders (chunk 0 from "
                        + "relation 1, chunk 2 from relation 3)")
                .hasMessageContaining("Start the source without state to snapshot the table again")
                .hasMessageContaining("or leave the table out");
    }

    @Test
    void aChunkWhoseMarkNamesNoTableIsComparedWithNothing() {
        origins.read(chunk(T, 0, -1)); // a mark from older state
        origins.read(chunk(T, 1, 101));
        origins.read(chunk(T, 2, -1));
        assertThatThrownBy(() -> origins.read(chunk(T, 3, 201))).isInstanceOf(CdcException.class)
                .hasMessageContaining("chunk 1 from relation 1, chunk 3 from relation 2");
    }

    /**
     * An identity that leaves a part open (a connector's mark from older state: any key order) equals any; the chunks
     * after it must still agree among themselves (from a review: compared with the first alone, two later orders
     * passed).
     */
    @Test
    void chunksAfterAnOpenIdentityMustAgreeAmongThemselves() {
        ChunkOrigins<Long> open = new ChunkOrigins<>(m -> new Origin(m / 100, m % 100 == 0 ? null : m % 100));
        open.read(chunk(T, 0, 100)); // relation 1, any order
        open.read(chunk(T, 1, 101)); // relation 1, order 1
        open.read(chunk(T, 2, 101));
        assertThatThrownBy(() -> open.read(chunk(T, 3, 102))).isInstanceOf(CdcException.class)
                .hasMessageContaining("chunk 1 from 1/1, chunk 3 from 1/2");
    }

    /** A relation and a key order; a missing order equals any. */
    private record Origin(long relation, Long order) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Origin x && x.relation == relation && (order == null || x.order == null || order.equals(x.order));
        }

        @Override
        public int hashCode() {
            return Long.hashCode(relation);
        }

        @Override
        public String toString() {
            return relation + "/" + order;
        }
    }

    @Test
    void aForgottenTableStartsAgain() {
        origins.read(chunk(T, 0, 101));
        origins.forget(T); // its snapshot was stopped, or starts again
        origins.read(chunk(T, 0, 201));
        origins.clear();
        assertThatCode(() -> origins.read(chunk(T, 1, 301))).doesNotThrowAnyException();
    }

    private static ChunkSplit<Long> chunk(TableId table, int index, long mark) {
        return ChunkSplit.<Long>of(table, KEY, index, null, null).finished(mark);
    }
}
