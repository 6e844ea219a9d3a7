package io.rustcdc.flink.postgres;

import io.rustcdc.flink.postgres.types.PgType;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.EmittedShapes;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.annotation.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The changes of one PostgreSQL database, read from its logical replication slot with pgoutput
 * protocol version 1 through PgJDBC and decoded by {@link PgOutputDecoder}.
 *
 * <p>Between transactions, the server's keepalives move the position forward, so an idle database
 * does not pin WAL once that position is confirmed. Nothing is confirmed to the slot except
 * through {@link #confirm}, which may be called from another thread. The status to the server,
 * also while backpressure stops the polling thread, is {@link PgReplicationChannel}'s; the slot's
 * gauges and the check that the server still streams to this source are {@link PgSlotCheck}'s,
 * whose failure the next {@link #poll} throws.
 */
final class PostgresChangeStream implements ChangeStream<PostgresPosition> {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresChangeStream.class);
    /** The most a read of the stream's catalogue or slot check may wait: {@code read.timeout} when that is less. */
    static final Duration CATALOG_READ_TIMEOUT = Duration.ofSeconds(30);
    /**
     * How long a call of the {@code sql-peek} transport may wait for the server, a partition's bound: the server
     * ends a call after {@link PgPeekChannel#CALL_TIMEOUT} itself, and frees the slot.
     */
    static final Duration PEEK_READ_TIMEOUT = Duration.ofMinutes(6);

    private final PostgresSourceConfig config;
    private final Connection catalogConnection;
    private final PgWalChannel channel;
    private final PgSlotCheck slotCheck;
    private final PgOutputDecoder decoder;
    /** {@code toast.reselect}'s reads, on the catalogue connection; null when the option is off. */
    private final PgToastReselect reselect;
    /** The pgoutput messages' bytes read so far ({@link #bytesRead}); the polling thread's. */
    private long bytesRead;

    /** What this stream's checks compare with: its first check's, or those of the earlier stream they go on from. */
    private final PgStreamChecks checks;

    /** @param earlier the checks of the connector instance's last stream, which this one's go on from; null for none */
    PostgresChangeStream(PostgresSourceConfig config, TableFilter filter, PostgresPosition from,
            @Nullable PgStreamChecks earlier) {
        config.requireStreaming();
        this.config = config;
        Connection catalogConn = PgConnections.open(config);
        Connection replicationConn = null;
        Connection slotConn = null;
        Connection peekConn = null;
        try {
            PgCatalog catalog = new PgCatalog(catalogConn, config.database());
            PgSlots.SlotState slot = PgSlots.requireResumable(catalogConn, config, from);
            // a partition must fail a catalog read or the slot check, not hang it: a read waits this long at most
            int readTimeout = (int) Math.min(CATALOG_READ_TIMEOUT.toMillis(), config.readTimeout().toMillis());
            catalogConn.setNetworkTimeout(Runnable::run, readTimeout);
            slotConn = PgConnections.open(config);
            slotConn.setNetworkTimeout(Runnable::run, readTimeout);
            this.reselect = config.toastReselect() ? new PgToastReselect(catalogConn, PgConnections.mayBePooled(config)) : null;
            // the tables the publication carries now, checked again at every slot check; the decoder knows the
            // captured ones by relation id, to tell one renamed or replaced before the stream described it
            PgStreamChecks opened = PgStreamChecks.from(config, filter, earlier);
            PgPublicationCheck publication = opened.publication();
            publication.check(slotConn);
            // what the captured tables' values are made of as the stream opens: a type changed since fails a check
            PgValueTypeCheck types = opened.types();
            types.check(slotConn, publication.carried().keySet());
            this.checks = opened;
            PgOutputDecoder decoded = new PgOutputDecoder(config.database(), config.slotName(), filter, from,
                    catalogOf(catalog, catalogConn), reselect, publication.carried());
            this.decoder = decoded;
            int walsenderPid;
            if (config.walTransport() == WalTransport.SQL_PEEK) {
                peekConn = PgConnections.open(config);
                peekConn.setNetworkTimeout(Runnable::run, (int) PEEK_READ_TIMEOUT.toMillis());
                Lsn confirmed = slot.confirmedFlush == null ? Lsn.ZERO : slot.confirmedFlush;
                this.channel = new PgPeekChannel(config, peekConn, confirmed, () -> decoded.position().lsn());
                walsenderPid = PgSlotCheck.NO_WALSENDER;
                LOG.warn("Slot '{}' is read with '{}' = 'sql-peek': every poll decodes the slot's WAL again from its "
                        + "confirmed position, several times the work of a replication stream ('streaming'); meant "
                        + "for connections that cannot replicate", config.slotName(), PostgresOptions.WAL_TRANSPORT.key());
            } else {
                replicationConn = PgConnections.openReplication(config);
                walsenderPid = replicationConn.unwrap(PGConnection.class).getBackendPID();
                PGReplicationStream stream = start(replicationConn, from);
                this.channel = new PgReplicationChannel(config.slotName(), replicationConn, stream,
                        config.statusInterval());
            }
            this.slotCheck = new PgSlotCheck(config, slotConn, walsenderPid, publication, types);
        } catch (SQLException | RuntimeException e) {
            closeQuietly(replicationConn);
            closeQuietly(peekConn);
            closeQuietly(slotConn);
            closeQuietly(catalogConn);
            throw e instanceof SQLException ? PgConnections.failure(config, (SQLException) e) : (RuntimeException) e;
        }
        this.catalogConnection = catalogConn;
        LOG.info("Streaming changes of {} from slot '{}' at {} ({})", config.database(), config.slotName(), from,
                config.walTransport().text());
    }

    /** The checks of this stream, for a stream opened again after it to go on from. */
    PgStreamChecks checks() {
        return checks;
    }

    private PGReplicationStream start(Connection connection, PostgresPosition from) throws SQLException {
        var builder = connection.unwrap(PGConnection.class).getReplicationAPI().replicationStream().logical()
                .withSlotName(config.slotName())
                .withStartPosition(LogSequenceNumber.valueOf(from.lsn().asLong()))
                .withSlotOption("proto_version", "1")
                .withSlotOption("publication_names", PgLiterals.quoteIdentifier(config.publicationName()))
                .withStatusInterval((int) config.statusInterval().toMillis(), TimeUnit.MILLISECONDS);
        if (config.captureLogicalMessages()) {
            builder.withSlotOption("messages", "true");
        }
        return builder.start();
    }

    private static PgOutputDecoder.Catalog catalogOf(PgCatalog catalog, Connection connection) {
        return new PgOutputDecoder.Catalog() {
            @Override
            public PgType type(int oid, int typmod) throws SQLException {
                return catalog.types().resolve(oid, typmod);
            }

            @Override
            public List<String> primaryKey(int relationOid) throws SQLException {
                return catalog.primaryKey(relationOid);
            }

            @Override
            public java.util.Map<String, PgOutputDecoder.Attribute> attributes(int relationOid) throws SQLException {
                return catalog.attributes(Integer.toUnsignedLong(relationOid));
            }

            @Override
            public long fileNode(int relationOid) throws SQLException {
                return catalog.fileNode(Integer.toUnsignedLong(relationOid));
            }

            @Override
            public void awaitVisible(long xid) throws SQLException {
                catalog.awaitVisible(xid, CATALOG_READ_TIMEOUT);
            }

            @Override
            public boolean exists(int relationOid) throws SQLException {
                try (var s = connection.prepareStatement("SELECT 1 FROM pg_catalog.pg_class WHERE oid = ?")) {
                    s.setLong(1, Integer.toUnsignedLong(relationOid));
                    try (var rs = s.executeQuery()) {
                        return rs.next();
                    }
                }
            }
        };
    }

    @Override
    public StreamRecord<PostgresPosition> poll(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pauseMillis = 1;
        try {
            while (true) {
                CdcException failure = slotCheck.failure();
                if (failure != null) {
                    throw failure;
                }
                StreamRecord<PostgresPosition> record = decoder.next();
                if (record != null) {
                    return record;
                }
                ByteBuffer message = channel.readPending();
                if (message != null) {
                    bytesRead += message.remaining();
                    decoder.handle(message);
                    pauseMillis = 1;
                    continue;
                }
                record = decoder.progress(channel.lastReceived());
                if (record != null) {
                    return record;
                }
                if (System.nanoTime() >= deadline) {
                    return null;
                }
                Thread.sleep(pauseMillis);
                pauseMillis = Math.min(pauseMillis * 2, 20);
            }
        } catch (SQLException e) {
            throw failure(e);
        }
    }

    /**
     * A failed read classified by {@link PgFailure}, like every PostgreSQL failure: a walsender
     * terminated, a server shutting down or a broken link is transient, and the stream is reopened; the
     * slot check's finding that the slot is gone or lost comes first, and a publication dropped while
     * streaming is named.
     */
    private CdcException failure(SQLException e) {
        CdcException checked = slotCheck.failure();
        if (checked != null && checked.isFinal()) {
            return checked;
        }
        String publication = config.publicationName();
        if ("42704".equals(e.getSQLState()) && publication != null && !publicationExists(publication)) {
            Throwable cause = PgConnections.failure(config, e).getCause(); // e, a literal password masked
            // pgoutput looks the publication up as of each change it decodes: one created again does not cover
            // the changes between the drop and its creation, so this slot cannot get past them
            return new CdcException(CdcException.Kind.PREREQUISITE, "Publication '" + publication + "' was dropped "
                    + "while slot '" + config.slotName() + "' streamed it (PostgreSQL at "
                    + config.connection().describe() + "/" + config.database() + ", SQLSTATE 42704 at "
                    + decoder.position() + ": " + cause.getMessage() + "). The "
                    + "slot cannot decode the changes after the drop, not even once a publication of that name is "
                    + "created again. Create the publication, then restart the job without its state with a new "
                    + "slot (or the slot dropped and created again), so that the tables are snapshotted again.",
                    cause);
        }
        return PgConnections.failure(config, "the replication stream of slot '" + config.slotName() + "' at "
                + decoder.position(), e);
    }

    /** Whether the catalogue still has the publication; true when it cannot tell. */
    private boolean publicationExists(String publication) {
        try (var s = catalogConnection.prepareStatement("SELECT 1 FROM pg_catalog.pg_publication WHERE pubname = ?")) {
            s.setString(1, publication);
            try (var rs = s.executeQuery()) {
                return rs.next();
            }
        } catch (SQLException e) {
            LOG.debug("Could not look up publication '{}'", publication, e);
            return true;
        }
    }

    /** A table's first relation that differs from what the events before the position showed is a schema change. */
    @Override
    public void resumeShapes(EmittedShapes shapes) {
        decoder.resume(shapes);
    }

    @Override
    public void registerMetrics(org.apache.flink.metrics.MetricGroup group) {
        slotCheck.registerMetrics(group);
        if (reselect != null) {
            reselect.registerMetrics(group);
        }
    }

    /**
     * The bytes of the pgoutput messages read (each change's, and each transaction's begin and commit,
     * relation and type messages, logical messages), as PostgreSQL sent them inside the replication
     * protocol; not the protocol's own framing, nor the server's keepalives.
     */
    @Override
    public long bytesRead() {
        return bytesRead;
    }

    /** Safe from any thread: the polling thread (or the keepalive) sends it to the server. */
    @Override
    public void confirm(PostgresPosition p) {
        channel.confirm(p.lsn());
    }

    @Override
    public void close() {
        slotCheck.stop();
        channel.close();
        slotCheck.close();
        closeQuietly(catalogConnection);
    }

    private static void closeQuietly(Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            LOG.debug("Closing a connection failed", e);
        }
    }
}
