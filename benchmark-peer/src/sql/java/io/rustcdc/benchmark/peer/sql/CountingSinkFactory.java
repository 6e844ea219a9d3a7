package io.rustcdc.benchmark.peer.sql;

import io.rustcdc.benchmark.sql.CountedRows;
import io.rustcdc.benchmark.sql.CountingTableFactory;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkFunctionProvider;
import org.apache.flink.table.data.RowData;

/**
 * The peers' SQL sink for the benchmark's SQL path on Flink 1.20 ({@code 'connector' = 'benchmark-count'}): a
 * {@code SinkFunction}, as the peers' JSON path's sink, with parallelism 1, that counts and discards ({@link
 * CountedRows}); the options and the schema are handled as on our side ({@link CountingTableFactory}). Shared by
 * benchmark-peer and benchmark-peer-mysql (a source directory both add).
 */
public final class CountingSinkFactory extends CountingTableFactory {

    @Override
    protected DynamicTableSink.SinkRuntimeProvider provider(CountedRows rows) {
        return SinkFunctionProvider.of(new CountingRowSink(rows), 1);
    }

    private static final class CountingRowSink implements SinkFunction<RowData> {
        private static final long serialVersionUID = 1L;
        private final CountedRows rows;

        CountingRowSink(CountedRows rows) {
            this.rows = rows;
        }

        @Override
        public void invoke(RowData row, Context context) {
            rows.arrived(row);
        }
    }
}
