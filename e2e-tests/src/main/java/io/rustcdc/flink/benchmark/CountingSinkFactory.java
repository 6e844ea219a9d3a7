package io.rustcdc.flink.benchmark;

import io.rustcdc.benchmark.sql.CountedRows;
import io.rustcdc.benchmark.sql.CountingTableFactory;
import io.rustcdc.flink.e2e.compat.JobSink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;

/**
 * Our side's SQL sink for the benchmark's SQL path ({@code 'connector' = 'benchmark-count'}): a Sink V2 writer,
 * with parallelism 1 as the JSON path's sink, that counts and discards ({@link CountedRows}); the options and
 * the schema are handled as on the peers' side ({@link CountingTableFactory}).
 */
public final class CountingSinkFactory extends CountingTableFactory {

    @Override
    protected DynamicTableSink.SinkRuntimeProvider provider(CountedRows rows) {
        return SinkV2Provider.of(new CountingRowSink(rows), 1);
    }

    private static final class CountingRowSink extends JobSink<RowData> {
        private static final long serialVersionUID = 1L;
        private final CountedRows rows;

        CountingRowSink(CountedRows rows) {
            this.rows = rows;
        }

        @Override
        public SinkWriter<RowData> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(RowData row, Context context) {
                    rows.arrived(row);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
