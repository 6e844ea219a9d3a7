package io.rustcdc.flink.postgres;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.annotation.Nullable;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A started {@link PGReplicationStream} and its status to the server: what is confirmed, and the
 * keepalive that reports it while the stream is not read.
 *
 * <p>PgJDBC reports the stream's status only while it is read. When the job is backpressured the
 * polling thread stops reading (it waits for room in the reader's queue), and the walsender would
 * drop the connection after {@code wal_sender_timeout}. So a thread of this channel's own sends a
 * status update every status interval in which the polling thread has not read. Such an update
 * carries only what {@link #confirm} was given as flushed; the write position PgJDBC reports beside
 * it does not move the slot. The {@link PGReplicationStream} is not thread-safe: every use of it, from
 * either thread, holds {@link #lock}.
 */
final class PgReplicationChannel implements PgWalChannel {
    private static final Logger LOG = LoggerFactory.getLogger(PgReplicationChannel.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final String slot;
    private final Connection connection;
    private final PGReplicationStream stream;
    private final Object lock = new Object();
    private final ScheduledExecutorService keepalive;
    /** When the polling thread last read the stream (so PgJDBC sent its status if it was due). */
    private volatile long lastRead = System.nanoTime();
    private volatile Lsn toConfirm;
    /** Guarded by {@link #lock}. */
    private Lsn confirmed = Lsn.ZERO;
    /** Guarded by {@link #lock}. */
    private Lsn received = Lsn.ZERO;

    /** Takes over {@code connection} and its started {@code stream}; closing the channel closes both. */
    PgReplicationChannel(String slot, Connection connection, PGReplicationStream stream, Duration statusInterval) {
        this.slot = slot;
        this.connection = connection;
        this.stream = stream;
        this.keepalive = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rustcdc-postgres-keepalive-" + slot);
            t.setDaemon(true);
            return t;
        });
        long interval = statusInterval.toNanos();
        long period = Math.max(TimeUnit.NANOSECONDS.toMillis(interval) / 2, 100);
        keepalive.scheduleWithFixedDelay(() -> keepAlive(interval), period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * The next message if one has arrived, without waiting; null if none. Sends the confirmation first
     * when it moved. Called by the polling thread only.
     */
    @Override
    @Nullable
    public ByteBuffer readPending() throws SQLException {
        synchronized (lock) {
            applyConfirmation();
            ByteBuffer message = stream.readPending();
            received = Lsn.valueOf(stream.getLastReceiveLSN().asLong());
            lastRead = System.nanoTime();
            return message;
        }
    }

    /** The last position the server reported, in a message or a keepalive, as of the last {@link #readPending}. */
    @Override
    public Lsn lastReceived() {
        synchronized (lock) {
            return received;
        }
    }

    /** Safe from any thread: the next read or keepalive sends it to the server. */
    @Override
    public void confirm(Lsn lsn) {
        Lsn current = toConfirm;
        if (current == null || lsn.isAfter(current)) {
            toConfirm = lsn;
        }
    }

    /** Sends the status when the polling thread has not read for a status interval; see the class comment. */
    private void keepAlive(long intervalNanos) {
        if (System.nanoTime() - lastRead < intervalNanos) {
            return;
        }
        try {
            synchronized (lock) {
                if (System.nanoTime() - lastRead < intervalNanos || stream.isClosed()) {
                    return;
                }
                applyConfirmation();
                stream.forceUpdateStatus();
            }
            LOG.debug("Sent the status of slot '{}' while the stream is not read (backpressure)", slot);
        } catch (SQLException | RuntimeException e) {
            // the polling thread meets the same failure when it reads again, and fails with it
            LOG.warn("Could not send the status of slot '{}' while the stream is not read: {}", slot, e.toString());
            throw new IllegalStateException(e); // no more attempts on a broken connection
        }
    }

    /** Holding {@link #lock}. */
    private void applyConfirmation() throws SQLException {
        Lsn wanted = toConfirm;
        if (wanted != null && wanted.isAfter(confirmed)) {
            LogSequenceNumber lsn = LogSequenceNumber.valueOf(wanted.asLong());
            stream.setFlushedLSN(lsn);
            stream.setAppliedLSN(lsn);
            stream.forceUpdateStatus();
            confirmed = wanted;
            LOG.debug("Confirmed {} to slot '{}'", wanted, slot);
        }
    }

    /** Stops the keepalive, ends the stream within a bound and closes the connection. */
    @Override
    public void close() {
        keepalive.shutdownNow();
        try {
            synchronized (lock) {
                // ending the COPY waits for the server's answer: over a partitioned link it would never come,
                // and the task could not finish failing
                connection.setNetworkTimeout(Runnable::run, (int) CLOSE_TIMEOUT.toMillis());
                stream.close();
            }
        } catch (SQLException e) {
            LOG.debug("Closing the replication stream of slot '{}' failed", slot, e);
        }
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            LOG.debug("Closing the replication connection of slot '{}' failed", slot, e);
        }
    }
}
