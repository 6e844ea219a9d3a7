package io.rustcdc.benchmark.peer.sql;

import io.rustcdc.benchmark.Measurement;
import io.rustcdc.benchmark.SqlPath;
import java.util.Set;
import java.util.function.ToLongFunction;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkFunctionProvider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;
import org.apache.flink.types.RowKind;

/**
 * The peers' SQL sink for the benchmark's SQL path on Flink 1.20 ({@code 'connector' = 'benchmark-count'}),
 * the twin of our side's (e2e-tests' {@code CountingSinkFactory}, on Flink 2.3): counts the RowData rows as
 * they are and discards them, with parallelism 1 as the peers' JSON path's sink (a {@code SinkFunction} too);
 * -U rows are not counted (one update counts once); the commit time for latency is read from the
 * TIMESTAMP_LTZ column named by {@code 'commit-time-column'}, only while latency is measured. Shared by
 * benchmark-peer and benchmark-peer-mysql (a source directory both add).
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
            return SinkFunctionProvider.of(new CountingRowSink(commitIndex, commitPrecision), 1);
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

    private static final class CountingRowSink implements SinkFunction<RowData> {
        private static final long serialVersionUID = 1L;
        private final int commitIndex;
        private final int commitPrecision;
        private transient ToLongFunction<RowData> commitMillis;

        CountingRowSink(int commitIndex, int commitPrecision) {
            this.commitIndex = commitIndex;
            this.commitPrecision = commitPrecision;
        }

        @Override
        public void invoke(RowData row, Context context) {
            if (row.getRowKind() == RowKind.UPDATE_BEFORE) {
                return;
            }
            if (commitMillis == null) {
                commitMillis = r -> {
                    if (commitIndex < 0) {
                        throw new IllegalStateException("The counting sink has no commit time column to measure "
                                + "latency from");
                    }
                    return r.getTimestamp(commitIndex, commitPrecision).getMillisecond();
                };
            }
            Measurement.arrived(row, commitMillis);
        }
    }
}
