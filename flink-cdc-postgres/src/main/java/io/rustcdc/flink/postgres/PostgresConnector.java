package io.rustcdc.flink.postgres;

import io.rustcdc.flink.postgres.state.PostgresChunkMarkSerializer;
import io.rustcdc.flink.postgres.state.PostgresPositionSerializer;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.KeyOrder;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The PostgreSQL connector: pgoutput logical replication through PgJDBC, snapshot chunks read with
 * {@code COPY} in REPEATABLE READ transactions. Serializable; it holds only its configuration, and the checks of
 * the last stream it opened, which a stream opened again goes on from (not serialized).
 *
 * <pre>{@code
 * PostgresConnector connector = PostgresConnector.create(PostgresSourceConfig.builder()...build());
 * }</pre>
 */
@PublicEvolving
public final class PostgresConnector implements CdcConnector<PostgresPosition, PostgresChunkMark> {
    private static final long serialVersionUID = 1L;

    /** The connector's identity in events. */
    public static final String NAME = "postgres";

    private final PostgresSourceConfig config;
    /**
     * The checks of the last stream this instance opened: one opened again after a connection failure (by {@code
     * connect.max-retries}) goes on from them, so that a type or publication changed while no stream ran is found.
     */
    private transient volatile PgStreamChecks lastChecks;

    private PostgresConnector(PostgresSourceConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    public static PostgresConnector create(PostgresSourceConfig config) {
        return new PostgresConnector(config);
    }

    public PostgresSourceConfig config() {
        return config;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SimpleVersionedSerializer<PostgresPosition> positionSerializer() {
        return PostgresPositionSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<PostgresChunkMark> markSerializer() {
        return PostgresChunkMarkSerializer.INSTANCE;
    }

    /** The server's own order of key values: see {@link PostgresKeyOrder}. */
    @Override
    public KeyOrder keyOrder() {
        return PostgresKeyOrder.INSTANCE;
    }

    /** The retry of {@code connect.max-retries}, {@code connect.retry.initial-delay} and {@code connect.retry.max-delay}. */
    @Override
    public io.rustcdc.flink.source.ConnectionRetry connectionRetry() {
        return config.connection().retry();
    }

    /** Each COMMIT is a {@link io.rustcdc.flink.source.spi.StreamRecord#transactionEnd} record ({@link PgOutputDecoder}). */
    @Override
    public boolean marksTransactionEnds() {
        return true;
    }

    @Override
    public CatalogSession<PostgresPosition, PostgresChunkMark> openSession() {
        return new PostgresSession(config);
    }

    @Override
    public ChangeStream<PostgresPosition> openStream(PostgresPosition from, TableFilter filter) {
        PostgresChangeStream stream = new PostgresChangeStream(config, filter, from, lastChecks);
        lastChecks = stream.checks();
        return stream;
    }

    @Override
    public boolean reflects(PostgresChunkMark mark, PostgresPosition position) {
        return mark.reflects(position.xid(), position.lsn());
    }

    /** A change whose commit record starts at or after the chunk's high LSN cannot be in the chunk. */
    @Override
    public PostgresPosition handoffEnd(PostgresChunkMark mark) {
        return PostgresPosition.at(mark.highLsn());
    }

    /**
     * The relation id the chunk read under its lock and the order it read its key in ({@link PgChunkOrigin}); null in
     * a mark from state version 1, which kept neither.
     */
    @Override
    public Object tableIdentity(PostgresChunkMark mark) {
        long relid = mark.relationId();
        return relid == PostgresChunkMark.UNKNOWN_RELATION ? null : new PgChunkOrigin(relid, mark.keyOrder());
    }

    @Override
    public String toString() {
        return "PostgresConnector{" + config + "}";
    }
}
