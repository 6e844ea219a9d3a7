package io.rustcdc.flink.sql;

import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.KeyOrder;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.sqlserver.SqlServerChunkMark;
import io.rustcdc.flink.sqlserver.SqlServerPosition;
import io.rustcdc.flink.sqlserver.types.SqlServerColumn;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import javax.annotation.Nullable;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * {@code 'connector' = 'rustcdc-sqlserver-described'}: the real {@link SqlServerTableFactory} with its
 * real options and connector, except that planning describes the table from {@link #columns} instead of
 * asking a server (which cannot run here), so that the declared-schema check, the plan and the job graph
 * are tested without one. Registered by the test resources' service file; nothing runs the source.
 */
public final class DescribedSqlServerTableFactory extends SqlServerTableFactory {
    /** The columns the next planned table is described with; set by the test. */
    static volatile List<SqlServerColumn> columns = List.of();
    /** Its primary key. */
    static volatile List<String> primaryKey = List.of();
    /** The table the last planning described. */
    static volatile TableId described;
    /** The tables discovery lists (a filter picks among them); none by default. */
    static volatile List<TableId> discovered = List.of();
    /** Columns of particular tables, instead of {@link #columns}. */
    static volatile Map<TableId, List<SqlServerColumn>> columnsOf = Map.of();

    @Override
    public String factoryIdentifier() {
        return "rustcdc-sqlserver-described";
    }

    @Override
    CdcConnector<SqlServerPosition, SqlServerChunkMark> connector(ReadableConfig options) {
        return new Described(super.connector(options), columns, primaryKey);
    }

    /** The described table as the connector's catalogue describes one: its columns' declared types and value kinds. */
    static TableDescription description(TableId table, List<SqlServerColumn> columns, List<String> key) {
        List<RowShape.Column> shape = new ArrayList<>();
        for (SqlServerColumn c : columns) {
            shape.add(RowShape.Column.of(c.name(), c.dataType(), c.nullable()));
        }
        return TableDescription.of(table, RowShape.of(table.schema(), table.table(), shape, key),
                RowType.of(columns.stream().map(SqlServerColumn::name).collect(Collectors.toList()),
                        columns.stream().map(SqlServerColumn::valueType).collect(Collectors.toList())));
    }

    /** The real connector, with a session that can only describe the given table. */
    private static final class Described implements CdcConnector<SqlServerPosition, SqlServerChunkMark> {
        private static final long serialVersionUID = 1L;
        private final CdcConnector<SqlServerPosition, SqlServerChunkMark> real;
        /** Used only while planning, in this JVM: the job graph need not carry them. */
        private final transient List<SqlServerColumn> columns;
        private final transient List<String> key;

        Described(CdcConnector<SqlServerPosition, SqlServerChunkMark> real, List<SqlServerColumn> columns, List<String> key) {
            this.real = real;
            this.columns = List.copyOf(columns);
            this.key = List.copyOf(key);
        }

        @Override
        public String name() {
            return real.name();
        }

        @Override
        public SimpleVersionedSerializer<SqlServerPosition> positionSerializer() {
            return real.positionSerializer();
        }

        @Override
        public SimpleVersionedSerializer<SqlServerChunkMark> markSerializer() {
            return real.markSerializer();
        }

        @Override
        public KeyOrder keyOrder() {
            return real.keyOrder();
        }

        @Override
        public SqlServerPosition parsePosition(String text) {
            return real.parsePosition(text);
        }

        @Override
        public CatalogSession<SqlServerPosition, SqlServerChunkMark> openSession() {
            return new CatalogSession<>() {
                @Override
                public TableDescription describe(TableId table) {
                    described = table;
                    return description(table, columnsOf.getOrDefault(table, columns), key);
                }

                @Override
                public void checkSnapshotPrerequisites(List<TableId> tables) {
                    throw new UnsupportedOperationException("planning only");
                }

                @Override
                public SqlServerPosition prepareStream(List<TableId> tables, boolean fullBeforeImages) {
                    throw new UnsupportedOperationException("planning only");
                }

                @Override
                public List<TableId> discoverTables(TableFilter filter) {
                    return discovered.stream().filter(filter::matches).collect(Collectors.toList());
                }

                @Override
                @Nullable
                public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
                        int chunkSize) {
                    throw new UnsupportedOperationException("planning only");
                }

                @Override
                public SqlServerChunkMark readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
                        @Nullable Object[] upTo, Consumer<ChangeEvent> out) {
                    throw new UnsupportedOperationException("planning only");
                }

                @Override
                public SqlServerPosition currentPosition() {
                    throw new UnsupportedOperationException("planning only");
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public ChangeStream<SqlServerPosition> openStream(SqlServerPosition from, TableFilter filter) {
            throw new UnsupportedOperationException("planning only");
        }

        @Override
        public boolean reflects(SqlServerChunkMark mark, SqlServerPosition position) {
            return real.reflects(mark, position);
        }

        @Override
        public SqlServerPosition handoffEnd(SqlServerChunkMark mark) {
            return real.handoffEnd(mark);
        }

        @Override
        public Object tableIdentity(SqlServerChunkMark mark) {
            return real.tableIdentity(mark);
        }

        @Override
        public boolean marksTransactionEnds() {
            return real.marksTransactionEnds();
        }

        @Override
        public io.rustcdc.flink.source.ConnectionRetry connectionRetry() {
            return real.connectionRetry();
        }
    }
}
