package io.rustcdc.flink.sqlserver;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.annotation.Nullable;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The capture job's progress, sampled every {@code stream.metrics-interval} on a thread and connection
 * of its own (so a backpressured stream, whose polling thread waits, still reports it), for the gauges
 * {@code captureLatencySeconds} (the latest finished log scan session's {@code latency}: its end minus
 * the commit time of the last change it captured) and {@code captureScanAgeSeconds} (how long ago that
 * session ended: a capture job that stopped shows here, while its latency stays as it was), both from
 * {@code sys.dm_cdc_log_scan_sessions}. -1 before the first sample, when no session has ended since the
 * server started (the view starts empty then), and after a failed sample, which is logged and retried
 * at the next interval: a metric never fails the stream. Thread-safe.
 */
final class CaptureMetrics implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CaptureMetrics.class);
    static final String SAMPLE = "SELECT TOP (1) latency, DATEDIFF(second, end_time, GETDATE()) FROM "
            + "sys.dm_cdc_log_scan_sessions WHERE session_id > 0 AND end_time IS NOT NULL ORDER BY session_id DESC";

    private final SqlServerSourceConfig config;
    private final ScheduledExecutorService executor;
    /** Used only by the sampling thread; null between a failure and the next sample. */
    @Nullable private volatile Connection connection;
    @Nullable private String lastFailure;
    private volatile long latencySeconds = -1;
    private volatile long scanAgeSeconds = -1;

    /** Starts sampling at once. */
    CaptureMetrics(SqlServerSourceConfig config) {
        this.config = config;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rustcdc-sqlserver-capture-metrics-" + config.database());
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(this::sample, 0, config.metricsInterval().toMillis(), TimeUnit.MILLISECONDS);
    }

    void register(MetricGroup group) {
        group.gauge("captureLatencySeconds", () -> latencySeconds);
        group.gauge("captureScanAgeSeconds", () -> scanAgeSeconds);
    }

    private void sample() {
        try {
            if (connection == null) {
                connection = SqlServerConnections.connect(config);
            }
            try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(SAMPLE)) {
                boolean found = rs.next();
                latencySeconds = found ? rs.getLong(1) : -1;
                scanAgeSeconds = found ? rs.getLong(2) : -1;
            }
            lastFailure = null;
        } catch (SQLException | RuntimeException e) {
            latencySeconds = -1;
            scanAgeSeconds = -1;
            String message = e instanceof SQLException ? SqlServerConnections.failure(config, (SQLException) e)
                    .getMessage() : e.getMessage();
            if (!String.valueOf(message).equals(lastFailure)) {
                lastFailure = String.valueOf(message);
                LOG.warn("Sampling the capture job of database {} for the sqlserver.capture* gauges failed (they show "
                        + "-1 until a sample succeeds; sys.dm_cdc_log_scan_sessions needs VIEW DATABASE STATE): {}",
                        config.database(), message);
            }
            if (connection != null) {
                SqlServerConnections.close(connection);
                connection = null;
            }
        }
    }

    /**
     * Stops sampling and closes the connection once the thread has stopped; a sample still waiting
     * for its answer has its connection aborted instead.
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
        Connection c = connection;
        if (c == null) {
            return;
        }
        try {
            if (stopped) {
                c.close();
            } else {
                c.abort(Runnable::run);
            }
        } catch (SQLException | RuntimeException e) {
            LOG.debug("Closing the capture metrics' connection of database {} failed", config.database(), e);
        }
    }
}
