package io.rustcdc.benchmark.sql;

import io.rustcdc.benchmark.SqlPath;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

/**
 * The SQL sink of the benchmark's SQL path ({@code 'connector' = 'benchmark-count'}, {@link SqlPath}), both
 * sides' options and schema handling: the commit time for latency is read from the TIMESTAMP_LTZ column named
 * by {@code 'commit-time-column'}, only while latency is measured ({@link CountedRows}). Each side gives the
 * sink of its Flink version with parallelism 1, as its JSON path's sink: ours (e2e-tests, Flink 2.3) a Sink V2
 * writer, the peers' (benchmark-peer and benchmark-peer-mysql, Flink 1.20) a {@code SinkFunction}. This
 * directory (benchmark-common/src/flink) is compiled by those three modules, not by benchmark-common, which
 * has no Flink.
 */
public abstract class CountingTableFactory implements DynamicTableSinkFactory {
    private static final ConfigOption<String> COMMIT_TIME_COLUMN = ConfigOptions.key(SqlPath.COMMIT_TIME_COLUMN)
            .stringType().noDefaultValue();

    /** The side's sink, of parallelism 1, handing every row it gets to {@code rows}. */
    protected abstract DynamicTableSink.SinkRuntimeProvider provider(CountedRows rows);

    @Override
    public final String factoryIdentifier() {
        return SqlPath.SINK_CONNECTOR;
    }

    @Override
    public final Set<ConfigOption<?>> requiredOptions() {
        return Set.of(COMMIT_TIME_COLUMN);
    }

    @Override
    public final Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public final DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        int index = schema.getColumnNames().indexOf(helper.getOptions().get(COMMIT_TIME_COLUMN));
        int precision = index < 0 ? -1 : LogicalTypeChecks.getPrecision(
                schema.getColumns().get(index).getDataType().getLogicalType());
        return new CountingTable(new CountedRows(index, precision));
    }

    private final class CountingTable implements DynamicTableSink {
        private final CountedRows rows;

        CountingTable(CountedRows rows) {
            this.rows = rows;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requested) {
            return requested;
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return provider(rows);
        }

        @Override
        public DynamicTableSink copy() {
            return new CountingTable(rows);
        }

        @Override
        public String asSummaryString() {
            return "counting sink";
        }
    }
}
