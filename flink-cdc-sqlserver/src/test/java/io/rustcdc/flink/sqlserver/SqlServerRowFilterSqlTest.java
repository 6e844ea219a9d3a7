package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.sqlserver.types.SqlServerColumn;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A row filter goes into a chunk's queries as {@code AND (<condition>)}, after the key range. */
class SqlServerRowFilterSqlTest {
    private static final List<SqlServerColumn> KEY = List.of(SqlServerColumn.of("dbo.orders", "id", "bigint", 8, 19, 0,
            false));
    private static final TableId ORDERS = TableId.of("shop", "dbo", "orders");

    @Test
    void aChunkReadsTheRangeAndTheFilter() {
        assertThat(SqlServerSession.chunkWhere(KEY, true, true, "region = N'EU'")).isEqualTo(" WHERE "
                + SqlServerSql.after(KEY) + " AND " + SqlServerSql.atMost(KEY) + " AND (region = N'EU')");
        assertThat(SqlServerSession.chunkWhere(KEY, false, true, "region = N'EU'"))
                .isEqualTo(" WHERE " + SqlServerSql.atMost(KEY) + " AND (region = N'EU')");
        assertThat(SqlServerSession.chunkWhere(KEY, false, false, "region = N'EU'")).isEqualTo(" WHERE (region = N'EU')");
        assertThat(SqlServerSession.chunkWhere(KEY, true, false, null)).isEqualTo(" WHERE " + SqlServerSql.after(KEY));
        assertThat(SqlServerSession.chunkWhere(KEY, false, false, null)).isEmpty();
    }

    @Test
    void aChunksEndIsCountedAmongTheFilteredRows() {
        assertThat(SqlServerSession.nextChunkEndSql(ORDERS, KEY, false, 100, "region = N'EU'"))
                .isEqualTo("SELECT [id] FROM [dbo].[orders] WHERE (region = N'EU') ORDER BY [id] "
                        + "OFFSET 99 ROWS FETCH NEXT 1 ROWS ONLY");
        assertThat(SqlServerSession.nextChunkEndSql(ORDERS, KEY, true, 100, "region = N'EU'"))
                .isEqualTo("SELECT [id] FROM [dbo].[orders] WHERE " + SqlServerSql.after(KEY) + " AND (region = N'EU') "
                        + "ORDER BY [id] OFFSET 99 ROWS FETCH NEXT 1 ROWS ONLY");
    }
}
