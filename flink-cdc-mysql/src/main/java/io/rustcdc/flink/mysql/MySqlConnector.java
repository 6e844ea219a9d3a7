package io.rustcdc.flink.mysql;

import io.rustcdc.flink.mysql.state.MySqlPositionSerializer;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.KeyOrder;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The MySQL and MariaDB connector: the binlog through mysql-binlog-connector-java, snapshot chunks
 * read in consistent-snapshot transactions. A chunk's mark is the binlog position of its snapshot:
 * the chunk holds exactly the transactions that start before it. Serializable; it holds only its
 * configuration.
 *
 * <pre>{@code
 * MySqlConnector connector = MySqlConnector.create(MySqlSourceConfig.builder(ServerFlavor.MARIADB)...build());
 * }</pre>
 */
@PublicEvolving
public final class MySqlConnector implements CdcConnector<MySqlPosition, MySqlPosition> {
    private static final long serialVersionUID = 1L;

    private final MySqlSourceConfig config;

    private MySqlConnector(MySqlSourceConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    public static MySqlConnector create(MySqlSourceConfig config) {
        return new MySqlConnector(config);
    }

    public MySqlSourceConfig config() {
        return config;
    }

    @Override
    public String name() {
        return config.flavor().sourceName();
    }

    /**
     * Each commit (XID, a COMMIT or ROLLBACK query, a statement of its own) is a {@link
     * io.rustcdc.flink.source.spi.StreamRecord#transactionEnd} record ({@link MySqlChangeStream}).
     */
    @Override
    public boolean marksTransactionEnds() {
        return true;
    }

    @Override
    public SimpleVersionedSerializer<MySqlPosition> positionSerializer() {
        return MySqlPositionSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<MySqlPosition> markSerializer() {
        return MySqlPositionSerializer.INSTANCE;
    }

    /** The server's own order of key values: see {@link MySqlKeyOrder}. */
    @Override
    public KeyOrder keyOrder() {
        return MySqlKeyOrder.INSTANCE;
    }

    /** {@code mariadb-bin.000003:1234} (binlog file and offset, as {@code SHOW BINARY LOGS} and events print it). */
    @Override
    public MySqlPosition parsePosition(String text) {
        return MySqlPosition.parse(config.flavor(), text);
    }

    /** The retry of {@code connect.max-retries}, {@code connect.retry.initial-delay} and {@code connect.retry.max-delay}. */
    @Override
    public io.rustcdc.flink.source.ConnectionRetry connectionRetry() {
        return config.connection().retry();
    }

    @Override
    public CatalogSession<MySqlPosition, MySqlPosition> openSession() {
        return new MySqlSession(config);
    }

    @Override
    public ChangeStream<MySqlPosition> openStream(MySqlPosition from, TableFilter filter) {
        return new MySqlChangeStream(config, filter, from);
    }

    /**
     * A chunk holds a change when the change's transaction starts before the chunk's snapshot
     * position (by GTIDs when both carry them, so also after a move to a replica).
     */
    @Override
    public boolean reflects(MySqlPosition mark, MySqlPosition position) {
        return position.movedTo(position.file(), position.offset()).compareTo(mark) < 0;
    }

    @Override
    public MySqlPosition handoffEnd(MySqlPosition mark) {
        return mark;
    }

    @Override
    public String toString() {
        return "MySqlConnector{" + config + "}";
    }
}
