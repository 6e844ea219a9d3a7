package io.rustcdc.flink.benchmark;

import io.rustcdc.benchmark.Measurement;
import io.rustcdc.benchmark.SqlPath;
import io.rustcdc.flink.e2e.compat.JobSink;
import java.util.Set;
import java.util.function.ToLongFunction;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;
import org.apache.flink.types.RowKind;

/**
 * Our side's SQL sink for the benchmark's SQL path ({@code 'connector' = 'benchmark-count'}, {@link SqlPath}):
 * counts the rows it gets as they are (RowData, nothing converted) and discards them, with parallelism 1 as
 * the JSON path's sink. An update arrives as two rows, -U and +U: the -U is not counted, so that one change
 * counts once, as on the JSON path. The commit time for latency is read from the column named by {@code
 * 'commit-time-column'} (a TIMESTAMP_LTZ), only while latency is measured.
 */
public final class CountingSinkFactory implements DynamicTableSinkFactory {
    static final ConfigOption<String> COMMIT_TIME_COLUMN = ConfigOptions.key(SqlPath.COMMIT_TIME_COLUMN)
            .stringType().noDefaultValue();

    @Override
    public String factoryIdentifier() {
        return SqlPath.SINK_CONNECTOR;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(COMMIT_TIME_COLUMN);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        int index = schema.getColumnNames().indexOf(helper.getOptions().get(COMMIT_TIME_COLUMN));
        int precision = index < 0 ? -1 : LogicalTypeChecks.getPrecision(
                schema.getColumns().get(index).getDataType().getLogicalType());
        return new CountingTable(index, precision);
    }

    private static final class CountingTable implements DynamicTableSink {
        private final int commitIndex;
        private final int commitPrecision;

        CountingTable(int commitIndex, int commitPrecision) {
            this.commitIndex = commitIndex;
            this.commitPrecision = commitPrecision;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requested) {
            return requested;
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return SinkV2Provider.of(new CountingRowSink(commitIndex, commitPrecision), 1);
        }

        @Override
        public DynamicTableSink copy() {
            return new CountingTable(commitIndex, commitPrecision);
        }

        @Override
        public String asSummaryString() {
            return "counting sink";
        }
    }

    private static final class CountingRowSink extends JobSink<RowData> {
        private static final long serialVersionUID = 1L;
        private final int commitIndex;
        private final int commitPrecision;

        CountingRowSink(int commitIndex, int commitPrecision) {
            this.commitIndex = commitIndex;
            this.commitPrecision = commitPrecision;
        }

        @Override
        public SinkWriter<RowData> createWriter(WriterInitContext context) {
            ToLongFunction<RowData> commitMillis = row -> {
                if (commitIndex < 0) {
                    throw new IllegalStateException("The counting sink has no commit time column to measure latency from");
                }
                return row.getTimestamp(commitIndex, commitPrecision).getMillisecond();
            };
            return new SinkWriter<>() {
                @Override
                public void write(RowData row, Context context) {
                    if (row.getRowKind() != RowKind.UPDATE_BEFORE) {
                        Measurement.arrived(row, commitMillis);
                    }
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
