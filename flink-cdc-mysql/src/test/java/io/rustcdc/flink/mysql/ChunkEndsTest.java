package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.TableDescription;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A chunk end must come after the previous one by the connector's order. A MariaDB table created
 * before 10.9.8 (and the like) stores every UUID swapped, so its ORDER BY puts version 7 UUIDs by their
 * last bytes: such an end is at or before the previous one by the current order, and chunking fails.
 */
class ChunkEndsTest {
    private static final TableId T = TableId.of("d", "d", "t");
    private static final TableDescription TABLE = TableDescription.of(T, RowShape.of("d", "t",
            List.of(RowShape.Column.of("a", "int", false), RowShape.Column.of("k", "uuid", false)), List.of("a", "k")),
            RowType.of(List.of("a", "k"), List.of(ValueType.of(ValueKind.INTEGER), ValueType.of(ValueKind.TEXT))),
            Arrays.asList(null, MySqlKeyOrder.UUID));
    private static final List<String> KEY = List.of("a", "k");
    /** Version 7: stored as written now, swapped (last bytes first) by a table of the old format. */
    private static final String EARLY = "01890a5d-ac96-774b-bcce-b302099a8057";
    private static final String LATE = "01890a5d-ac97-7000-8000-000000000001";

    @Test
    void endsAfterThePreviousPass() {
        assertThatCode(() -> ChunkEnds.requireAfter(TABLE, KEY, new Object[] {1L, EARLY}, new Object[] {1L, LATE}))
                .doesNotThrowAnyException();
        assertThatCode(() -> ChunkEnds.requireAfter(TABLE, KEY, new Object[] {1L, LATE}, new Object[] {2L, EARLY}))
                .doesNotThrowAnyException();
        assertThatCode(() -> ChunkEnds.requireAfter(TABLE, KEY, null, new Object[] {1L, LATE}))
                .doesNotThrowAnyException();
    }

    @Test
    void anEndAtOrBeforeThePreviousFailsNamingTheRemedies() {
        for (Object[] end : List.of(new Object[] {1L, EARLY}, new Object[] {1L, LATE})) {
            assertThatThrownBy(() -> ChunkEnds.requireAfter(TABLE, KEY, new Object[] {1L, LATE}, end))
                    .isInstanceOfSatisfying(CdcException.class, e -> org.assertj.core.api.Assertions.assertThat(e.kind())
                            .isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining("d.t").hasMessageContaining("ALTER TABLE d.t FORCE")
                    .hasMessageContaining("scan.incremental.snapshot.chunk.key-column")
                    .hasMessageNotContaining(EARLY.substring(0, 8));
        }
    }
}
