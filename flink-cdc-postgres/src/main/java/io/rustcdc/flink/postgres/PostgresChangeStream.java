package io.rustcdc.flink.postgres;

import io.rustcdc.flink.postgres.types.PgType;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 * through {@link #confirm}, which may be called from another thread.
 *
 * <p>PgJDBC reports the stream's status only while it is read. When the job is backpressured the
 * polling thread stops reading (it waits for room in the reader's queue), and the walsender would
 * drop the connection after {@code wal_sender_timeout}. So a thread of this stream's own sends a
 * status update every {@code status.interval} in which the polling thread has not read. Such an
 * update carries only what {@link #confirm} was given as flushed; the write position PgJDBC reports
 * beside it does not move the slot. The {@link PGReplicationStream} is not thread-safe: every use of
 * it, from either thread, holds {@link #streamLock}.
 *
 * <p>The slot check (the gauges' sample and whether this stream's walsender still holds the slot)
 * runs every {@value #SLOT_CHECK_SECONDS} s on a thread of its own with a JDBC connection of its own,
 * so backpressure, which stops the polling thread, does not stall the gauges. A failed check is
 * thrown by the polling thread's next {@link #poll}.
 */
final class PostgresChangeStream implements ChangeStream<PostgresPosition> {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresChangeStream.class);
    static final int SLOT_CHECK_SECONDS = 10;
    private static final Duration SLOT_CHECK_INTERVAL = Duration.ofSeconds(SLOT_CHECK_SECONDS);
    /** {@code wal_status} values, in the order of their {@code slotWalStatusCode} (0 to 3). */
    static final List<String> WAL_STATUSES = List.of("reserved", "extended", "unreserved", "lost");
    /** {@code slotWalStatusCode} before the first check, or for a {@code wal_status} not in {@link #WAL_STATUSES}. */
    static final int WAL_STATUS_UNKNOWN = -1;
    /** {@code slotWalStatusCode} when the slot does not exist. */
    static final int WAL_STATUS_MISSING = -2;
    static final Duration CATALOG_READ_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final PostgresSourceConfig config;
    private final Connection catalogConnection;
    private final Connection replicationConnection;
    /** Used only by the {@link #slotCheck} thread. */
    private final Connection slotConnection;
    private final PGReplicationStream stream;
    /** The walsender serving this stream: the slot's {@code active_pid} while the connection lives. */
    private final int walsenderPid;
    private final PgOutputDecoder decoder;
    private final Object streamLock = new Object();
    private final ScheduledExecutorService keepalive;
    private final ScheduledExecutorService slotCheck;
    /** What the slot check found wrong, for the polling thread to throw. */
    private volatile CdcException slotFailure;
    /** When the polling thread last read the stream (so PgJDBC sent its status if it was due). */
    private volatile long lastRead = System.nanoTime();

    private volatile Lsn toConfirm;
    private Lsn confirmed = Lsn.ZERO;
    private volatile long slotLagBytes = -1;
    private volatile String slotWalStatus = "unknown";
    private volatile long slotSafeWalSizeBytes = -1;

    PostgresChangeStream(PostgresSourceConfig config, TableFilter filter, PostgresPosition from) {
        config.requireStreaming();
        this.config = config;
        Connection catalogConn = PgConnections.open(config);
        Connection replicationConn = null;
        Connection slotConn = null;
        try {
            PgCatalog catalog = new PgCatalog(catalogConn, config.database());
            PgSlots.requireResumable(catalogConn, config, from);
            // a partition must fail a catalog read or the slot check, not hang it: a read waits this long at most
            catalogConn.setNetworkTimeout(Runnable::run, (int) CATALOG_READ_TIMEOUT.toMillis());
            slotConn = PgConnections.open(config);
            slotConn.setNetworkTimeout(Runnable::run, (int) CATALOG_READ_TIMEOUT.toMillis());
            replicationConn = PgConnections.openReplication(config);
            this.walsenderPid = replicationConn.unwrap(PGConnection.class).getBackendPID();
            this.stream = start(replicationConn, from);
            this.decoder = new PgOutputDecoder(config.database(), config.slotName(), filter, from, catalogOf(catalog));
        } catch (SQLException | RuntimeException e) {
            closeQuietly(replicationConn);
            closeQuietly(slotConn);
            closeQuietly(catalogConn);
            throw e instanceof SQLException ? PgConnections.failure(config, (SQLException) e) : (RuntimeException) e;
        }
        this.catalogConnection = catalogConn;
        this.replicationConnection = replicationConn;
        this.slotConnection = slotConn;
        this.keepalive = startKeepalive();
        this.slotCheck = startSlotCheck();
        LOG.info("Streaming changes of {} from slot '{}' at {}", config.database(), config.slotName(), from);
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

    private static PgOutputDecoder.Catalog catalogOf(PgCatalog catalog) {
        return new PgOutputDecoder.Catalog() {
            @Override
            public PgType type(int oid, int typmod) throws SQLException {
                return catalog.types().resolve(oid, typmod);
            }

            @Override
            public Set<String> nullableColumns(int relationOid) throws SQLException {
                return catalog.nullableColumns(relationOid);
            }

            @Override
            public List<String> primaryKey(int relationOid) throws SQLException {
                return catalog.primaryKey(relationOid);
            }
        };
    }

    @Override
    public StreamRecord<PostgresPosition> poll(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pauseMillis = 1;
        try {
            while (true) {
                CdcException failure = slotFailure;
                if (failure != null) {
                    throw failure;
                }
                StreamRecord<PostgresPosition> record = decoder.next();
                if (record != null) {
                    return record;
                }
                ByteBuffer message;
                Lsn received;
                synchronized (streamLock) {
                    applyConfirmation();
                    message = stream.readPending();
                    received = Lsn.valueOf(stream.getLastReceiveLSN().asLong());
                    lastRead = System.nanoTime();
                }
                if (message != null) {
                    decoder.handle(message);
                    pauseMillis = 1;
                    continue;
                }
                record = decoder.progress(received);
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
            throw new CdcException(CdcException.Kind.CONNECTION, "The replication stream of slot '" + config.slotName()
                    + "' failed at " + decoder.position() + ": " + e.getMessage(), e);
        }
    }

    /** Runs {@link #checkSlot} every {@link #SLOT_CHECK_INTERVAL} until it fails once. */
    private ScheduledExecutorService startSlotCheck() {
        String slot = config.slotName();
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rustcdc-postgres-slot-check-" + slot);
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(() -> {
            try {
                checkSlot();
            } catch (SQLException e) {
                if (!executor.isShutdown()) {
                    slotFailure = new CdcException(CdcException.Kind.CONNECTION, "The slot check of slot '" + slot
                            + "' failed: " + e.getMessage(), e);
                }
                throw new IllegalStateException(e); // no more checks
            } catch (CdcException e) {
                if (!executor.isShutdown()) {
                    slotFailure = e;
                }
                throw e;
            } catch (RuntimeException e) {
                if (!executor.isShutdown()) {
                    slotFailure = new CdcException(CdcException.Kind.CONNECTION, "The slot check of slot '" + slot
                            + "' failed: " + e, e);
                }
                throw e;
            }
        }, 0, SLOT_CHECK_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        return executor;
    }

    /**
     * Every 10 s, on the slot check's thread: the slot's lag (bytes of WAL it retains beyond its confirmed
     * position) and {@code wal_status}, for the gauges; and whether the slot is still streamed by this
     * stream's walsender. A connection the server dropped while nothing reached this side (the close
     * lost in a partition, a half-open link) shows here as another or no {@code active_pid}: a loud
     * CONNECTION failure instead of a stream that waits forever.
     */
    private void checkSlot() throws SQLException {
        Integer activePid = null;
        try (var s = slotConnection.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), "
                + "confirmed_flush_lsn)::bigint, wal_status, active_pid, safe_wal_size "
                + "FROM pg_catalog.pg_replication_slots WHERE slot_name = ?")) {
            s.setString(1, config.slotName());
            try (var rs = s.executeQuery()) {
                if (rs.next()) {
                    slotLagBytes = rs.getLong(1);
                    slotWalStatus = rs.getString(2);
                    activePid = (Integer) rs.getObject(3);
                    long safe = rs.getLong(4);
                    // NULL: max_slot_wal_keep_size = -1 (no cap), or the slot is lost
                    slotSafeWalSizeBytes = rs.wasNull() ? -1 : safe;
                } else {
                    slotWalStatus = "missing";
                    slotSafeWalSizeBytes = -1;
                }
            }
        }
        if (activePid == null || activePid != walsenderPid) {
            throw new CdcException(CdcException.Kind.CONNECTION, "PostgreSQL at " + config.hostname() + ":"
                    + config.port() + " no longer streams slot '" + config.slotName() + "' to this source: its "
                    + "walsender (pid " + walsenderPid + ") is gone, the slot's active_pid is " + activePid + " ("
                    + slotWalStatus + "). The server dropped the replication connection without this side "
                    + "seeing it (wal_sender_timeout, a network partition or half-open connection, "
                    + "pg_terminate_backend); the job restarts from its last checkpoint.");
        }
    }

    @Override
    public void registerMetrics(org.apache.flink.metrics.MetricGroup group) {
        group.gauge("slotLagBytes", () -> slotLagBytes);
        group.gauge("slotWalStatus", () -> slotWalStatus);
        group.gauge("slotWalStatusCode", () -> walStatusCode(slotWalStatus));
        for (String status : WAL_STATUSES) {
            // slotWalStatusReserved, ...: 1 while wal_status is that status, else 0
            String name = "slotWalStatus" + Character.toUpperCase(status.charAt(0)) + status.substring(1);
            group.gauge(name, () -> status.equals(slotWalStatus) ? 1 : 0);
        }
        group.gauge("slotSafeWalSizeBytes", () -> slotSafeWalSizeBytes);
    }

    /** 0 to 3 for {@link #WAL_STATUSES}, {@link #WAL_STATUS_MISSING} or {@link #WAL_STATUS_UNKNOWN}. */
    static int walStatusCode(String walStatus) {
        if ("missing".equals(walStatus)) {
            return WAL_STATUS_MISSING;
        }
        int i = walStatus == null ? -1 : WAL_STATUSES.indexOf(walStatus);
        return i >= 0 ? i : WAL_STATUS_UNKNOWN;
    }

    /** Safe from any thread: the polling thread sends it to the server. */
    @Override
    public void confirm(PostgresPosition p) {
        Lsn lsn = p.lsn();
        Lsn current = toConfirm;
        if (current == null || lsn.isAfter(current)) {
            toConfirm = lsn;
        }
    }

    /** Sends the status when the polling thread has not read for a status interval; see the class comment. */
    private ScheduledExecutorService startKeepalive() {
        String slot = config.slotName();
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rustcdc-postgres-keepalive-" + slot);
            t.setDaemon(true);
            return t;
        });
        long interval = config.statusInterval().toNanos();
        long period = Math.max(TimeUnit.NANOSECONDS.toMillis(interval) / 2, 100);
        executor.scheduleWithFixedDelay(() -> {
            if (System.nanoTime() - lastRead < interval) {
                return;
            }
            try {
                synchronized (streamLock) {
                    if (System.nanoTime() - lastRead < interval || stream.isClosed()) {
                        return;
                    }
                    applyConfirmation();
                    stream.forceUpdateStatus();
                }
                LOG.debug("Sent the status of slot '{}' while the stream is not read (backpressure)", slot);
            } catch (SQLException | RuntimeException e) {
                // the polling thread meets the same failure when it reads again, and fails with it
                LOG.warn("Could not send the status of slot '{}' while the stream is not read: {}", slot,
                        e.toString());
                throw new IllegalStateException(e); // no more attempts on a broken connection
            }
        }, period, period, TimeUnit.MILLISECONDS);
        return executor;
    }

    /** Holding {@link #streamLock}. */
    private void applyConfirmation() throws SQLException {
        Lsn wanted = toConfirm;
        if (wanted != null && wanted.isAfter(confirmed)) {
            LogSequenceNumber lsn = LogSequenceNumber.valueOf(wanted.asLong());
            stream.setFlushedLSN(lsn);
            stream.setAppliedLSN(lsn);
            stream.forceUpdateStatus();
            confirmed = wanted;
            LOG.debug("Confirmed {} to slot '{}'", wanted, config.slotName());
        }
    }

    @Override
    public void close() {
        keepalive.shutdownNow();
        slotCheck.shutdownNow();
        try {
            synchronized (streamLock) {
                // ending the COPY waits for the server's answer: over a partitioned link it would never come,
                // and the task could not finish failing
                replicationConnection.setNetworkTimeout(Runnable::run, (int) CLOSE_TIMEOUT.toMillis());
                stream.close();
            }
        } catch (SQLException e) {
            LOG.debug("Closing the replication stream of slot '{}' failed", config.slotName(), e);
        }
        closeQuietly(replicationConnection);
        closeSlotConnection();
        closeQuietly(catalogConnection);
    }

    /**
     * Closes the slot check's connection once its thread has stopped. A check still waiting for an
     * answer (a partition: up to {@link #CATALOG_READ_TIMEOUT}) would hold the connection, and closing
     * it would wait as long: then the connection is aborted (its socket closed) instead.
     */
    private void closeSlotConnection() {
        boolean stopped;
        try {
            stopped = slotCheck.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopped = false;
        }
        if (stopped) {
            closeQuietly(slotConnection);
            return;
        }
        try {
            slotConnection.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            LOG.debug("Aborting the slot check's connection of slot '{}' failed", config.slotName(), e);
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            LOG.debug("Closing a connection failed", e);
        }
    }
}
