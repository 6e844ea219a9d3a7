package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.KeyOrder;
import io.rustcdc.flink.sqlserver.state.SqlServerChunkMarkSerializer;
import io.rustcdc.flink.sqlserver.state.SqlServerPositionSerializer;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The SQL Server connector: CDC change tables read through mssql-jdbc one LSN window at a time,
 * snapshot chunks read under SERIALIZABLE key-range locks. A chunk's mark is the log's end LSN read
 * while the chunk's locks are held: the chunk holds exactly the changes of its range whose commit LSN
 * is at or below it, however far the capture job lags (docs/sqlserver.md); and the table's object_id,
 * read under the same locks, which tells a table replaced between two chunks. Serializable; it holds
 * only its configuration.
 *
 * <pre>{@code
 * SqlServerConnector connector = SqlServerConnector.create(SqlServerSourceConfig.builder()
 *         .hostname("db").username("cdc").password(SecretProvider.environment("MSSQL_PASSWORD"))
 *         .database("shop").build());
 * }</pre>
 */
@PublicEvolving
public final class SqlServerConnector implements CdcConnector<SqlServerPosition, SqlServerChunkMark> {
    private static final long serialVersionUID = 1L;

    /** The connector's name in events and metrics. */
    public static final String NAME = "sqlserver";

    private final SqlServerSourceConfig config;

    private SqlServerConnector(SqlServerSourceConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    public static SqlServerConnector create(SqlServerSourceConfig config) {
        return new SqlServerConnector(config);
    }

    public SqlServerSourceConfig config() {
        return config;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SimpleVersionedSerializer<SqlServerPosition> positionSerializer() {
        return SqlServerPositionSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<SqlServerChunkMark> markSerializer() {
        return SqlServerChunkMarkSerializer.INSTANCE;
    }

    @Override
    public KeyOrder keyOrder() {
        return SqlServerKeyOrder.INSTANCE;
    }

    /** {@code 0000002D:000001A8:0003} (after that commit) or {@code commit/seqval#operation} (after that change). */
    @Override
    public SqlServerPosition parsePosition(String text) {
        return SqlServerPosition.parse(text);
    }

    /**
     * Each transaction's end is a {@link io.rustcdc.flink.source.spi.StreamRecord#transactionEnd} record,
     * after its last change and before any other transaction's ({@code StreamSteps}): a transaction is a
     * commit LSN, and the change tables are read in commit LSN order.
     */
    @Override
    public boolean marksTransactionEnds() {
        return true;
    }

    @Override
    public ConnectionRetry connectionRetry() {
        return config.connection().retry();
    }

    @Override
    public CatalogSession<SqlServerPosition, SqlServerChunkMark> openSession() {
        return new SqlServerSession(config);
    }

    @Override
    public ChangeStream<SqlServerPosition> openStream(SqlServerPosition from, TableFilter filter) {
        return new SqlServerChangeStream(config, filter, from);
    }

    /** A chunk holds a change when the change's commit LSN is at or below the chunk's mark. */
    @Override
    public boolean reflects(SqlServerChunkMark mark, SqlServerPosition position) {
        return mark.reflects(position.commitLsn());
    }

    /** After every commit at or below the mark: no later change is reflected by the chunk. */
    @Override
    public SqlServerPosition handoffEnd(SqlServerChunkMark mark) {
        return SqlServerPosition.afterCommit(mark.logEnd());
    }

    /**
     * The object_id of the table the chunk read, under its locks; null in a mark from state version 1,
     * which did not keep it. The capture instance is not part of it: the chunk reads the table, and a
     * table keeps its object_id when its instances change (an ALTER's switch), but not when it is
     * dropped and created again.
     */
    @Override
    public Object tableIdentity(SqlServerChunkMark mark) {
        int id = mark.objectId();
        return id == SqlServerChunkMark.UNKNOWN_OBJECT ? null : "object_id " + id;
    }

    @Override
    public String toString() {
        return "SqlServerConnector{" + config + "}";
    }
}
