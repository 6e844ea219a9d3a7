package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.TableDescription;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A row filter goes into a chunk's queries as {@code AND (<condition>)}, after the key range. */
class PostgresRowFilterSqlTest {
    private static final TableDescription ORDERS = TableDescription.of(TableId.of("shop", "public", "orders"),
            RowShape.of("public", "orders", List.of(RowShape.Column.of("id", "bigint", false),
                    RowShape.Column.of("region", "text", true)), List.of("id")),
            RowType.of(List.of("id", "region"), List.of(ValueType.of(ValueKind.BIGINT), ValueType.of(ValueKind.TEXT))));

    @Test
    void aChunkReadsTheRangeAndTheFilter() {
        assertThat(PostgresSession.chunkSql(ORDERS, false, List.of("id"), new Object[] {10L}, new Object[] {20L},
                "region = 'EU' OR id = 1")).isEqualTo("COPY (SELECT \"id\", \"region\" FROM ONLY \"public\".\"orders\" WHERE "
                + "(\"id\") > ('10'::bigint) AND (\"id\") <= ('20'::bigint) AND (region = 'EU' OR id = 1)) TO STDOUT");
        assertThat(PostgresSession.chunkSql(ORDERS, false, List.of("id"), null, null, "region = 'EU'"))
                .isEqualTo("COPY (SELECT \"id\", \"region\" FROM ONLY \"public\".\"orders\" WHERE (region = 'EU')) TO STDOUT");
        assertThat(PostgresSession.chunkSql(ORDERS, false, List.of("id"), null, null, null))
                .isEqualTo("COPY (SELECT \"id\", \"region\" FROM ONLY \"public\".\"orders\") TO STDOUT");
    }

    @Test
    void aChunksEndIsCountedAmongTheFilteredRows() {
        assertThat(PostgresSession.nextChunkEndSql(ORDERS, false, List.of("id"), null, 100, "region = 'EU'"))
                .isEqualTo("SELECT \"id\" FROM ONLY \"public\".\"orders\" WHERE (region = 'EU') ORDER BY \"id\" "
                        + "LIMIT 1 OFFSET 99");
        assertThat(PostgresSession.nextChunkEndSql(ORDERS, false, List.of("id"), new Object[] {5L}, 100, "region = 'EU'"))
                .isEqualTo("SELECT \"id\" FROM ONLY \"public\".\"orders\" WHERE (\"id\") > ('5'::bigint) AND (region = 'EU') "
                        + "ORDER BY \"id\" LIMIT 1 OFFSET 99");
    }

    @Test
    void aPlainTableIsReadWithoutItsChildrenAPartitionedOneWithItsPartitions() {
        assertThat(PostgresSession.chunkSql(ORDERS, true, List.of("id"), null, null, null))
                .isEqualTo("COPY (SELECT \"id\", \"region\" FROM \"public\".\"orders\") TO STDOUT");
        assertThat(PostgresSession.nextChunkEndSql(ORDERS, true, List.of("id"), null, 100, null))
                .isEqualTo("SELECT \"id\" FROM \"public\".\"orders\" ORDER BY \"id\" LIMIT 1 OFFSET 99");
    }
}
