package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.Event;
import io.rustcdc.flink.mysql.MySqlSourceConfig;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.function.Consumer;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * A binlog client that reads from a file and offset, decodes rows exactly ({@link ExactCells}) and
 * never reconnects on its own: a reconnect would resume in the middle of a transaction, without its
 * table maps, so a lost connection fails the stream and the source resumes from its checkpoint.
 *
 * <p>A dead peer is detected: the server is asked for a heartbeat every {@link
 * MySqlSourceConfig#binlogHeartbeat()} on an idle binlog, and a read that gets nothing, not even a
 * heartbeat, for {@link MySqlSourceConfig#binlogReadTimeout()} ({@code binlog.read-timeout}) fails (a
 * {@link java.net.SocketTimeoutException}), as a half-open connection would otherwise wait forever.
 * TCP keep-alive is on too, and Nagle's algorithm off. (The client's own keep-alive, which reconnects, stays off.)
 *
 * <p>Backpressure does not cost the connection: while the job is backpressured the client's thread
 * waits for room in the stream's queue and reads nothing, and the server's binlog dump thread, unable
 * to write, would drop the connection after its {@code net_write_timeout} (60 s by default). The client
 * sets the session's {@code net_write_timeout} to {@link #NET_WRITE_TIMEOUT} before it asks for the
 * binlog, as the chunk reads do on theirs; a job blocked longer loses the connection, a CONNECTION
 * failure the source's retry reopens at the last record it returned.
 *
 * <p>Compressed events reach the listener as the plain events they hold: Oracle MySQL's compressed
 * transactions as each event inside, placed at the payload event ({@link CompressedTransactions}),
 * MariaDB's compressed query and row events as plain ones ({@link MariaDbCompressedEvents}).
 */
@Internal
public final class BinlogClients {
    /**
     * How long the server may wait to send binlog events this side does not read (a backpressured job):
     * the binlog connection's {@code net_write_timeout}, as long as MySqlSession allows a chunk's rows.
     */
    public static final Duration NET_WRITE_TIMEOUT = Duration.ofSeconds(600);

    private BinlogClients() {}

    /**
     * A binlog connection's socket, not yet connected (package-private for its test): TCP keep-alive on, Nagle's
     * algorithm off (the client signs in with two writes back to back, two TLS records: with it the second waited
     * for the server's delayed acknowledgement of the first, 40 ms on every binlog connection, and each Oracle MySQL
     * chunk's window opens one; the JDBC drivers turn it off on their connections too), and reads bounded by {@code
     * binlog.read-timeout}, the TLS handshake's too.
     */
    static Socket socket(MySqlSourceConfig config) throws SocketException {
        Socket socket = new Socket();
        socket.setKeepAlive(true);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout((int) config.binlogReadTimeout().toMillis());
        return socket;
    }

    public static GtidSetClient create(MySqlSourceConfig config, String file, long offset, Consumer<Event> events,
            Consumer<Exception> failures) {
        return create(config, file, offset, events, failures, null);
    }

    /**
     * With {@code ended} not null, a client that reads to the binlog's current end and stops there
     * (the server closes the connection, and {@code ended} runs after the last event): the
     * non-blocking mode of {@code mysqlbinlog}, in which the client connects as server-id 0, so it
     * never collides with the id of a source or replica.
     */
    public static GtidSetClient create(MySqlSourceConfig config, String file, long offset, Consumer<Event> events,
            Consumer<Exception> failures, @Nullable Runnable ended) {
        GtidSetClient client = new GtidSetClient(config.hostname(), config.port(), config.username(),
                config.password().resolve().reveal());
        client.setServerId(config.serverId());
        client.setBinlogFilename(file);
        client.setBinlogPosition(offset);
        client.setKeepAlive(false);
        client.setNetWriteTimeout(NET_WRITE_TIMEOUT.toSeconds()); // a session variable, set before the dump
        client.setSocketFactory(() -> socket(config));
        if (ended != null) {
            client.setBlocking(false); // the client then sends server-id 0
        } else {
            client.setHeartbeatInterval(config.binlogHeartbeat().toMillis()); // a backfill ends at the binlog's end instead
        }
        client.setEventDeserializer(ExactEventDeserializer.create());
        // a compressed transaction goes on as the events inside it; the client would log and drop a
        // listener's exception, so a payload that cannot be read is queued as the failure it is
        client.registerEventListener(event -> {
            try {
                CompressedTransactions.expand(event, client.getBinlogFilename(), events);
            } catch (RuntimeException e) {
                failures.accept(e);
            }
        });
        client.registerLifecycleListener(new BinaryLogClient.AbstractLifecycleListener() {
            @Override
            public void onCommunicationFailure(BinaryLogClient c, Exception e) {
                failures.accept(e);
            }

            @Override
            public void onEventDeserializationFailure(BinaryLogClient c, Exception e) {
                failures.accept(e);
            }

            @Override
            public void onDisconnect(BinaryLogClient c) {
                if (ended != null) {
                    ended.run(); // after a failure, which was queued first
                    return;
                }
                failures.accept(new java.io.EOFException("the server closed the binlog connection (it does so when "
                        + "another reader connects with the same server-id " + config.serverId() + ": give every "
                        + "source and replica a server-id of its own; when it shuts down; and when this source "
                        + "read nothing for the connection's net_write_timeout of " + NET_WRITE_TIMEOUT.toSeconds()
                        + " s, a job backpressured that long)"));
            }
        });
        return client;
    }
}
