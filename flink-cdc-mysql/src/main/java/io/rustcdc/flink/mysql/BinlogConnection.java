package io.rustcdc.flink.mysql;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import io.rustcdc.flink.mysql.binlog.BinlogClients;
import io.rustcdc.flink.mysql.binlog.GtidSetClient;
import io.rustcdc.flink.source.CdcException;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.annotation.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a binlog stream reads through: a catalogue connection (for the tables' shapes and checks
 * mid-stream), and the binlog client, connected at a position the server was first checked to hold,
 * its events going to a {@link BinlogQueue}, counted by a {@link BinlogProgress}.
 */
final class BinlogConnection {
    private static final Logger LOG = LoggerFactory.getLogger(BinlogConnection.class);

    private final Connection connection;
    private final boolean ownsConnection;
    private final BinlogTables tables;
    private final TableNameCase nameCase;
    private final GtidSetClient client;
    private final BinlogProgress progress;
    /** The identity of the server read ({@link MySqlPosition#server()}). */
    private final String server;

    /**
     * Opens the binlog at {@code from}: by its GTIDs with {@code byGtids} (and with {@code atPosition}
     * from its file and offset at the earliest), else at its file and offset.
     *
     * @param backfill a chunk's backfill, read to the binlog's end (see {@link MySqlChangeStream#backfill})
     * @param session for a backfill, the catalogue session's connection (not in a transaction), used and
     *     not closed; null to open one of its own
     * @param charsets the catalogue's character sets by id; null to read them
     */
    BinlogConnection(MySqlSourceConfig config, MySqlPosition from, boolean backfill, boolean byGtids,
            boolean atPosition, @Nullable Connection session, @Nullable Map<Integer, String> charsets,
            BinlogQueue queue, StreamFailures failures) {
        this.connection = session != null ? session : MySqlConnections.connect(config);
        this.ownsConnection = session == null;
        try {
            this.server = BinlogServer.identity(connection, config.flavor());
            if (!byGtids || atPosition) {
                String name = config.flavor() + " at " + config.hostname() + ":" + config.port();
                BinlogServer.requireSame(from, name, server);
                BinlogRetention.requireFile(connection, name, from.file(), from.offset());
            }
            if (from.gtidText() != null && from.flavor() == ServerFlavor.MARIADB) {
                BinlogRetention.requireMariaDbGtids(connection, from.mariaDbGtids());
            } else if (from.gtidText() != null) {
                BinlogRetention.requireMySqlGtids(connection, from.mysqlGtids());
                String missing = backfill ? null : BinlogRetention.mysqlGtidsNotHeld(connection, from.mysqlGtids());
                if (missing != null) {
                    throw failures.gtidsNotHeld(from, missing);
                }
            }
            this.tables = new BinlogTables(connection, charsets != null ? charsets : BinlogTables.charsets(connection));
            this.nameCase = TableNameCase.read(connection);
        } catch (SQLException | RuntimeException e) {
            closeConnection();
            throw e instanceof SQLException ? MySqlConnections.failure(config, (SQLException) e) : (RuntimeException) e;
        }
        this.client = BinlogClients.create(config, from.file(), from.offset(), queue::event, queue::fail,
                backfill ? queue::end : null);
        this.progress = new BinlogProgress(from);
        client.registerEventListener(progress);
        // by GTIDs the server finds the first transaction after them in its own binlog: a replica's too;
        // a backfill may say where in the binlog the first of them is at the earliest
        if (byGtids && from.flavor() == ServerFlavor.MYSQL) {
            client.dumpAfter(from.mysqlGtids(), backfill && atPosition); // tagged GTIDs too, which the library lacks
        } else if (byGtids) {
            client.setGtidSet(from.gtidText());
            client.setUseBinlogFilenamePositionInGtidMode(backfill && atPosition);
        }
        BinlogTls.configure(client, config);
        String reader = backfill ? "a chunk's backfill, read to the binlog's end as server-id 0"
                : "server-id " + config.serverId();
        Abandonment abandonment = new Abandonment(config.hostname() + ":" + config.port() + ", " + reader);
        client.registerLifecycleListener(abandonment);
        long timeout = config.connectTimeout().toMillis();
        long started = System.nanoTime();
        try {
            client.connect(timeout);
        } catch (IOException | TimeoutException e) {
            // connect(timeout) takes an interrupt of this thread for its timeout and clears it: a timeout before its
            // time was an interrupt, which is kept (a retry of the open during a cancellation would connect again)
            boolean interrupted = e instanceof TimeoutException
                    && System.nanoTime() - started < TimeUnit.MILLISECONDS.toNanos(timeout);
            // and it may leave its own thread connecting: that connection would hold this server-id and fill a queue
            // nobody reads (a MariaDB stream restored after a savepoint once stalled while such a connection of its
            // server-id was left: likely the server's dump thread for it, blocked writing, held the next one back)
            queue.close();
            abandonment.abandon(client);
            closeConnection();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            throw new CdcException(CdcException.Kind.CONNECTION, "Could not open the binlog of " + config.flavor()
                    + " at " + config.hostname() + ":" + config.port() + " as '" + config.username() + "' from "
                    + from + " (" + reader + "): " + (interrupted ? "the opening thread was interrupted (the task is "
                            + "being cancelled or stopped)" : e.getMessage()));
        }
    }

    /** The identity of the server whose binlog this is ({@link MySqlPosition#server()}). */
    String server() {
        return server;
    }

    Connection connection() {
        return connection;
    }

    BinlogTables tables() {
        return tables;
    }

    /** How the server compares the names statements give tables. */
    TableNameCase nameCase() {
        return nameCase;
    }

    BinlogProgress progress() {
        return progress;
    }

    /** Disconnects the client, then aborts the connection if it is this stream's own. */
    void close() {
        disconnect(client);
        closeConnection();
    }

    private static void disconnect(BinaryLogClient client) {
        // the client's disconnect skips closing its socket on an interrupted thread (a cancelled task's is)
        boolean interrupted = Thread.interrupted();
        try {
            client.disconnect();
        } catch (IOException e) {
            LOG.debug("Closing the binlog client failed", e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Ends a client whose connect was given up: a connect still under way stops before its dump request ({@link
     * GtidSetClient#abandon}); the client is disconnected on a thread of its own, as the caller may be interrupted
     * again and again (a task being cancelled), and the library's disconnect then returns without having closed
     * anything; and disconnected again should a connect whose dump request went out before complete after that (its
     * thread may not have reached the connect lock yet when the disconnect takes it and lets it go).
     */
    private static final class Abandonment extends BinaryLogClient.AbstractLifecycleListener {
        private final String reader;
        private volatile boolean abandoned;

        Abandonment(String reader) {
            this.reader = reader;
        }

        void abandon(GtidSetClient client) {
            abandoned = true;
            client.abandon();
            disconnectApart(client);
        }

        @Override
        public void onConnect(BinaryLogClient client) {
            if (abandoned) {
                LOG.warn("A binlog connection given up ({}) connected after all; it is disconnected", reader);
                disconnectApart(client); // apart from the client's own thread, which reads once this returns
            }
        }

        private void disconnectApart(BinaryLogClient client) {
            Thread t = new Thread(() -> disconnect(client), "rustcdc-binlog-abandoned " + reader);
            t.setDaemon(true);
            t.start();
        }
    }

    private void closeConnection() {
        if (!ownsConnection) {
            return;
        }
        Disconnects.abort(connection); // the polling thread may be in a catalogue query on it
    }
}
