package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.annotation.Nullable;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A binlog stream's lag, sampled every {@code binlog.check-interval} on a thread and a JDBC connection
 * of its own, so that backpressure, which stops the polling thread, does not stop it: the server's
 * binlog end, its files' sizes, its executed GTIDs and its clock, against how far the stream has read
 * ({@link BinlogProgress}). A sample that fails sets the server's gauges to -1 and is logged; the next
 * one connects again. The check never fails the stream.
 *
 * <p>The lag in seconds is 0 when the stream has read the whole binlog the sample found; otherwise the
 * time, by the server's clock, since the later of the last transaction event the stream read (its
 * timestamp, which the server wrote) and the last sample that found the stream at the binlog's end.
 * Every event not read yet was written after both, so this is at most the age of the oldest one, plus
 * one interval when the stream falls behind between two samples. Heartbeats date nothing: their
 * timestamp is 0 on both flavors.
 */
final class BinlogCheck implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BinlogCheck.class);
    /** How long a sample's query may wait for the server, so that a partition fails a sample rather than hangs it. */
    private static final int READ_TIMEOUT_MILLIS = 30_000;

    /** What one sample found; -1 for what it could not tell. */
    record Sample(long serverFileIndex, long serverPosition, long lagBytes, long lagSeconds, long gtidsBehind) {
        static final Sample NONE = new Sample(-1, -1, -1, -1, -1);
    }

    private final MySqlSourceConfig config;
    private final BinlogProgress progress;
    private final ScheduledExecutorService executor;
    private volatile Sample sample = Sample.NONE;
    /** The sample thread's connection: null until opened, and after a failure; {@link #close} aborts it. */
    @Nullable private volatile Connection connection;
    /** The sample thread's: what it found before. */
    @Nullable private String statusStatement;
    private long caughtUpMillis = -1;
    private boolean failing;

    /** Starts sampling at once. */
    BinlogCheck(MySqlSourceConfig config, BinlogProgress progress) {
        this.config = config;
        this.progress = progress;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rustcdc-" + config.flavor().sourceName() + "-binlog-check-" + config.serverId());
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(this::sampleOnce, 0, config.binlogCheckInterval().toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** The stream's gauges, numeric only (see docs/mysql.md, Metrics). */
    void registerMetrics(MetricGroup group) {
        group.gauge("binlogFileIndex", () -> MySqlPosition.fileNumber(progress.readTo().file()));
        group.gauge("binlogPosition", () -> progress.readTo().offset());
        group.gauge("binlogServerFileIndex", () -> sample.serverFileIndex());
        group.gauge("binlogServerPosition", () -> sample.serverPosition());
        group.gauge("binlogLagBytes", () -> sample.lagBytes());
        group.gauge("binlogLagSeconds", () -> sample.lagSeconds());
        group.gauge("gtidsBehind", () -> sample.gtidsBehind());
    }

    private void sampleOnce() {
        try {
            Connection c = connection;
            if (c == null) {
                c = MySqlConnections.connect(config);
                connection = c;
                c.setNetworkTimeout(Runnable::run, READ_TIMEOUT_MILLIS);
            }
            sample = sample(c);
            if (failing) {
                LOG.info("The binlog of {}:{} is sampled again for the lag gauges", config.hostname(), config.port());
                failing = false;
            }
        } catch (SQLException | RuntimeException e) {
            sample = Sample.NONE;
            String why = e instanceof SQLException ? MySqlConnections.failure(config, (SQLException) e).getMessage()
                    : e instanceof CdcException ? e.getMessage() : e.toString();
            if (!failing) {
                LOG.warn("Could not sample the binlog of {}:{} for the lag gauges, which read -1 until a sample "
                        + "succeeds (the stream is not affected; the next sample connects again): {}",
                        config.hostname(), config.port(), why);
            }
            failing = true;
            closeConnection();
        }
    }

    private Sample sample(Connection c) throws SQLException {
        String[] end = binlogEnd(c); // first: the stream, read last, may only be further than this
        Map<String, Long> sizes = binlogSizes(c);
        String executed;
        long nowMillis;
        String gtidVariable = config.flavor() == ServerFlavor.MARIADB ? "@@GLOBAL.gtid_binlog_pos"
                : "@@GLOBAL.gtid_executed";
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT " + gtidVariable + ", ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000)")) {
            rs.next();
            executed = rs.getString(1);
            nowMillis = rs.getLong(2);
        }
        BinlogProgress.ReadTo read = progress.readTo();
        long lastEventMillis = progress.lastEventMillis();
        MySqlPosition committed = progress.committed();

        String endFile = end[0];
        long endOffset = Long.parseLong(end[1]);
        boolean caughtUp = read.file().equals(endFile) ? read.offset() >= endOffset
                : MySqlPosition.fileNumber(read.file()) > MySqlPosition.fileNumber(endFile);
        long lagSeconds;
        if (caughtUp) {
            caughtUpMillis = nowMillis;
            lagSeconds = 0;
        } else {
            long since = Math.max(lastEventMillis, caughtUpMillis);
            lagSeconds = since < 0 ? -1 : Math.max(0, nowMillis - since) / 1000;
        }
        return new Sample(MySqlPosition.fileNumber(endFile), endOffset,
                caughtUp ? 0 : bytesBehind(read, endFile, endOffset, sizes), lagSeconds,
                gtidsBehind(committed, executed));
    }

    /** The binlog between {@code read} and the end, by the files' sizes; -1 when the file read is not listed. */
    private static long bytesBehind(BinlogProgress.ReadTo read, String endFile, long endOffset, Map<String, Long> sizes) {
        long behind = 0;
        boolean from = false;
        for (Map.Entry<String, Long> file : sizes.entrySet()) {
            long size = file.getKey().equals(endFile) ? endOffset : file.getValue();
            if (file.getKey().equals(read.file())) {
                from = true;
                behind += Math.max(0, size - read.offset());
            } else if (from) {
                behind += size;
            }
            if (file.getKey().equals(endFile)) {
                break;
            }
        }
        return from ? behind : -1;
    }

    /** The transactions the server executed that the stream's position lacks; -1 when the position has no GTIDs. */
    private long gtidsBehind(MySqlPosition committed, @Nullable String executed) {
        if (committed.gtidText() == null || executed == null) {
            return -1;
        }
        return config.flavor() == ServerFlavor.MARIADB
                ? committed.mariaDbGtids().sequencesBehind(MariaDbGtidPosition.parse(executed))
                : MySqlGtidSet.parse(executed).countNotIn(committed.mysqlGtids());
    }

    /**
     * The binlog's end, file and offset: on Oracle MySQL {@code SHOW BINARY LOG STATUS} (8.2+; 8.4
     * removed the older name), else {@code SHOW MASTER STATUS}, whichever worked first; on MariaDB
     * {@code SHOW MASTER STATUS}.
     */
    private String[] binlogEnd(Connection c) throws SQLException {
        if (statusStatement == null && config.flavor() == ServerFlavor.MARIADB) {
            statusStatement = "SHOW MASTER STATUS";
        }
        if (statusStatement == null) {
            try {
                String[] end = binlogEnd(c, "SHOW BINARY LOG STATUS");
                statusStatement = "SHOW BINARY LOG STATUS";
                return end;
            } catch (SQLException olderServer) {
                statusStatement = "SHOW MASTER STATUS";
            }
        }
        return binlogEnd(c, statusStatement);
    }

    private static String[] binlogEnd(Connection c, String statement) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(statement)) {
            if (!rs.next()) {
                throw new SQLException(statement + " shows no binlog");
            }
            return new String[] {rs.getString(1), rs.getString(2)};
        }
    }

    /** {@code SHOW BINARY LOGS}: each file's size, in the server's order. */
    private static Map<String, Long> binlogSizes(Connection c) throws SQLException {
        Map<String, Long> sizes = new LinkedHashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
            while (rs.next()) {
                sizes.put(rs.getString(1), rs.getLong(2));
            }
        }
        return sizes;
    }

    private void closeConnection() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            Disconnects.abort(c);
        }
    }

    /**
     * Stops the samples and closes the connection: at once when no sample runs, else by aborting it (a
     * sample waiting for a partitioned server would otherwise hold it up to the read timeout).
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
        if (stopped) {
            connection = null;
            try {
                c.close();
            } catch (SQLException | RuntimeException e) {
                LOG.debug("Closing the binlog check's connection failed", e);
            }
        } else {
            Disconnects.abort(c);
        }
    }
}
