package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.CdcSourceBuilder;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.sql.compat.UpsertMode;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javax.annotation.Nullable;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsReadingMetadata;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;

/**
 * One source table, or the tables a pattern matches, as a Flink SQL table: the same {@link
 * CdcSource} as the DataStream API, with a {@link RowDataDeserializer}.
 */
final class CdcTableSource<P extends SourcePosition & Comparable<P>, M extends Serializable>
        implements ScanTableSource, SupportsReadingMetadata {
    private final Function<Boolean, CdcSourceBuilder<ChangeEvent, P, M>> builder;
    private final SourceTables tables;
    @Nullable private final String flinkTable;
    private final DeclaredColumns columns;
    private final DataType physicalType;
    private final boolean upsert;
    private final boolean rereadsUnsent;
    private List<MetadataColumn> metadata = new ArrayList<>();
    private DataType producedType;

    /**
     * @param builder a source builder for the table, given whether whole old rows are required
     * @param flinkTable the Flink table's identifier ({@code catalog.database.table}), for messages; null when unknown
     * @param rereadsUnsent whether the source reads values an update did not send from the table, so that an
     *     update still lacking one had its row gone by then (see {@link RowDataDeserializer})
     */
    CdcTableSource(Function<Boolean, CdcSourceBuilder<ChangeEvent, P, M>> builder, SourceTables tables,
            @Nullable String flinkTable, DeclaredColumns columns, DataType physicalType, boolean upsert,
            boolean rereadsUnsent) {
        this.builder = builder;
        this.tables = tables;
        this.flinkTable = flinkTable;
        this.columns = columns;
        this.physicalType = physicalType;
        this.upsert = upsert;
        this.rereadsUnsent = rereadsUnsent;
        this.producedType = physicalType;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return upsert ? UpsertMode.changelogMode() : ChangelogMode.all();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        RowDataDeserializer deserializer = new RowDataDeserializer(tables, flinkTable, columns, metadata, upsert,
                rereadsUnsent, context.createTypeInformation(producedType));
        CdcSource<RowData, P, M> source = builder.apply(!upsert).deserializer(deserializer).build();
        return SourceProvider.of(source);
    }

    @Override
    public Map<String, DataType> listReadableMetadata() {
        Map<String, DataType> columns = new LinkedHashMap<>();
        for (MetadataColumn c : MetadataColumn.values()) {
            columns.put(c.key(), c.type);
        }
        return columns;
    }

    @Override
    public void applyReadableMetadata(List<String> keys, DataType producedDataType) {
        List<MetadataColumn> chosen = new ArrayList<>();
        keys.forEach(k -> chosen.add(MetadataColumn.of(k)));
        this.metadata = chosen;
        this.producedType = producedDataType;
    }

    @Override
    public DynamicTableSource copy() {
        CdcTableSource<P, M> copy = new CdcTableSource<>(builder, tables, flinkTable, columns, physicalType, upsert,
                rereadsUnsent);
        copy.metadata = new ArrayList<>(metadata);
        copy.producedType = producedType;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "rustcdc " + tables;
    }
}
