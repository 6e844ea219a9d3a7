package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replication stream's slot, checked every {@code slot.check-interval} on a thread of its own with
 * a JDBC connection of its own, so that backpressure, which stops the polling thread, does not stall
 * it: the slot's lag and {@code wal_status} for the gauges, whether the slot is still streamed by
 * the stream's walsender, the publication ({@link PgPublicationCheck}) and the types of the captured
 * tables' values ({@link PgValueTypeCheck}). A failed check
 * is kept for the polling thread to throw ({@link #failure}).
 */
final class PgSlotCheck implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PgSlotCheck.class);
    /** {@code wal_status} values, in the order of their {@code slotWalStatusCode} (0 to 3). */
    static final List<String> WAL_STATUSES = List.of("reserved", "extended", "unreserved", "lost");
    /** {@code slotWalStatusCode} before the first check, or for a {@code wal_status} not in {@link #WAL_STATUSES}. */
    static final int WAL_STATUS_UNKNOWN = -1;
    /** {@code slotWalStatusCode} when the slot does not exist. */
    static final int WAL_STATUS_MISSING = -2;

    private final PostgresSourceConfig config;
    /** Used only by the check's thread. */
    private final Connection connection;
    /** The walsender of a stream that has none ({@code sql-peek}): the slot is active only during its calls. */
    static final int NO_WALSENDER = 0;
    /** The walsender serving the stream: the slot's {@code active_pid} while its connection lives. */
    private final int walsenderPid;
    private final PgPublicationCheck publication;
    private final PgValueTypeCheck types;
    private final ScheduledExecutorService executor;
    /** What the check found wrong, for the polling thread to throw. */
    private volatile CdcException failure;
    private volatile long slotLagBytes = -1;
    private volatile String slotWalStatus = "unknown";
    private volatile long slotSafeWalSizeBytes = -1;

    /** Starts checking at once, on {@code connection}, which this check closes. */
    PgSlotCheck(PostgresSourceConfig config, Connection connection, int walsenderPid, PgPublicationCheck publication,
            PgValueTypeCheck types) {
        this.config = config;
        this.publication = publication;
        this.types = types;
        this.connection = connection;
        this.walsenderPid = walsenderPid;
        String slot = config.slotName();
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rustcdc-postgres-slot-check-" + slot);
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(this::checkOnce, 0, config.slotCheckInterval().toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** The first failed check, or null. */
    CdcException failure() {
        return failure;
    }

    /** Runs {@link #check}; a failure is kept and ends the checks (the scheduler runs no more after a throw). */
    private void checkOnce() {
        String slot = config.slotName();
        try {
            check();
        } catch (SQLException e) {
            // classified like every PostgreSQL failure: a revoked privilege or a cancelled query is final
            fail(PgConnections.failure(config, "the slot check of slot '" + slot + "'", e));
            throw new IllegalStateException(e);
        } catch (CdcException e) {
            fail(e);
            throw e;
        } catch (RuntimeException e) {
            fail(new CdcException(CdcException.Kind.CONNECTION, "The slot check of slot '" + slot + "' failed: " + e,
                    e));
            throw e;
        }
    }

    private void fail(CdcException e) {
        if (!executor.isShutdown()) {
            failure = e;
        }
    }

    /**
     * The slot's lag (bytes of WAL it retains beyond its confirmed position) and {@code wal_status}, for
     * the gauges; and whether the slot is still streamed by the stream's walsender. A connection the
     * server dropped while nothing reached this side (the close lost in a partition, a half-open link)
     * shows here as another or no {@code active_pid}: a loud CONNECTION failure instead of a stream
     * that waits forever. A slot that is gone or invalidated is a final POSITION_LOST, whatever the
     * walsender: reconnecting cannot bring its changes back.
     */
    private void check() throws SQLException {
        Integer activePid = null;
        boolean exists;
        try (var s = connection.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), "
                + "confirmed_flush_lsn)::bigint, wal_status, active_pid, safe_wal_size "
                + "FROM pg_catalog.pg_replication_slots WHERE slot_name = ?")) {
            s.setString(1, config.slotName());
            try (var rs = s.executeQuery()) {
                exists = rs.next();
                if (exists) {
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
        if (!exists) {
            throw PgSlots.missing(config, "the position this source last confirmed");
        }
        if ("lost".equals(slotWalStatus)) {
            throw PgSlots.invalidated(config);
        }
        if (walsenderPid != NO_WALSENDER && (activePid == null || activePid != walsenderPid)) {
            throw new CdcException(CdcException.Kind.CONNECTION, "PostgreSQL at " + config.hostname() + ":"
                    + config.port() + " no longer streams slot '" + config.slotName() + "' to this source: its "
                    + "walsender (pid " + walsenderPid + ") is gone, the slot's active_pid is " + activePid + " ("
                    + slotWalStatus + "). The server dropped the replication connection without this side "
                    + "seeing it (wal_sender_timeout, a network partition or half-open connection, "
                    + "pg_terminate_backend); the job restarts from its last checkpoint.");
        }
        publication.check(connection);
        types.check(connection, publication.carried().keySet());
    }

    void registerMetrics(MetricGroup group) {
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

    /** Stops the checks; a check in flight ends on its own, and its result is dropped. */
    void stop() {
        executor.shutdownNow();
    }

    /**
     * Stops the checks and closes the connection once the thread has stopped. A check still waiting for
     * an answer (a partition: up to the connection's network timeout) would hold the connection, and
     * closing it would wait as long: then the connection is aborted (its socket closed) instead.
     */
    @Override
    public void close() {
        executor.shutdownNow();
        boolean stopped;
        try {
            stopped = executor.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopped = false;
        }
        try {
            if (stopped) {
                connection.close();
            } else {
                connection.abort(Runnable::run);
            }
        } catch (SQLException | RuntimeException e) {
            LOG.debug("Closing the slot check's connection of slot '{}' failed", config.slotName(), e);
        }
    }
}
