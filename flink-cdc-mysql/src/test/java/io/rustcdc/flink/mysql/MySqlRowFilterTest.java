package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.TableDescription;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A row filter goes into a chunk's queries as {@code AND (<condition>)}; a filtered chunk whose binlog
 * window changed a row of its range cannot be completed from it (see ChunkReader#read), which the
 * window says.
 */
class MySqlRowFilterTest {
    private static final TableId T = TableId.of("d", "d", "t");
    private static final RowType TYPE = RowType.of(List.of("id", "v"),
            List.of(ValueType.of(ValueKind.BIGINT), ValueType.of(ValueKind.BIGINT)));
    private static final TableDescription TABLE = TableDescription.of(T, RowShape.of("d", "t",
            List.of(RowShape.Column.of("id", "bigint", false), RowShape.Column.of("v", "bigint", true)), List.of("id")),
            TYPE);
    private static final SourceInfo SOURCE = SourceInfo.snapshot("mysql", null);

    @Test
    void theFilterFollowsTheKeyRange() {
        assertThat(ChunkReader.rangeWhere(List.of("id"), new Object[] {1L}, new Object[] {9L}, "v > 3 OR v IS NULL"))
                .isEqualTo(" WHERE (`id`) > (?) AND (`id`) <= (?) AND (v > 3 OR v IS NULL)");
        assertThat(ChunkReader.rangeWhere(List.of("a", "b"), null, new Object[] {1L, 2L}, "v = 1"))
                .isEqualTo(" WHERE (`a`, `b`) <= (?, ?) AND (v = 1)");
        assertThat(ChunkReader.rangeWhere(List.of("id"), null, null, "v = 1")).isEqualTo(" WHERE (v = 1)");
        assertThat(ChunkReader.rangeWhere(List.of("id"), new Object[] {1L}, null, null)).isEqualTo(" WHERE (`id`) > (?)");
        assertThat(ChunkReader.rangeWhere(List.of("id"), null, null, null)).isEmpty();
    }

    @Test
    void aWindowIsTouchedOnlyByAChangeOfARowInTheChunksRange() {
        ChunkBackfill w = window();
        w.apply(insert(20)); // past the range
        w.apply(ChangeEvent.builder(Op.INSERT, TableId.of("d", "d", "other"), SOURCE).after(row(5)).build());
        assertThat(w.touched()).isFalse();
        w.apply(ChangeEvent.builder(Op.DELETE, T, SOURCE).before(row(5)).build());
        assertThat(w.touched()).isTrue();

        ChunkBackfill moved = window();
        moved.apply(ChangeEvent.builder(Op.UPDATE, T, SOURCE).before(row(30)).after(row(7)).build());
        assertThat(moved.touched()).as("a key moved into the range").isTrue();

        ChunkBackfill truncated = window();
        truncated.apply(ChangeEvent.builder(Op.TRUNCATE, T, SOURCE).build());
        assertThat(truncated.touched()).isTrue();
    }

    private static ChunkBackfill window() {
        return new ChunkBackfill(null, null, null, Map.of(), TABLE, List.of("id"), new Object[] {1L}, new Object[] {10L},
                List.of());
    }

    private static ChangeEvent insert(long id) {
        return ChangeEvent.builder(Op.INSERT, T, SOURCE).after(row(id)).build();
    }

    private static Row row(long id) {
        return Row.of(TYPE, id, id * 10);
    }
}
