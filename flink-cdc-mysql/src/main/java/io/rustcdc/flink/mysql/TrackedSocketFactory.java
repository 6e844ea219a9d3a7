package io.rustcdc.flink.mysql;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import javax.annotation.Nullable;
import javax.net.SocketFactory;
import org.apache.flink.annotation.Internal;

/**
 * The sockets of the JDBC connections this source opens, kept so that a connection can be cut from
 * another thread ({@link #cut}). MariaDB Connector/J creates each connection's socket through the
 * factory its {@code socketFactory} option names (an extension point of the driver; the driver then
 * connects the socket and, with TLS, layers its TLS socket over it). Its own way to end a busy
 * connection from another thread, {@code abort}, first sends {@code KILL} on a new connection and only
 * then closes the socket, and that close reads the TLS stream under the lock the busy reader holds: behind
 * a network that passes nothing it never gets to the close, and the reader stays blocked. Closing the
 * plain socket below the TLS one ends a blocked read at once, whatever the network does.
 *
 * <p>Only connections opened through {@link #connect} are recorded, on the opening thread, so other
 * uses of the factory (the driver's own {@code KILL} connection) are plain sockets. Thread-safe.
 */
@Internal
public final class TrackedSocketFactory extends SocketFactory {
    /** The sockets the connection being opened on this thread created (a driver may make several). */
    private static final ThreadLocal<List<Socket>> OPENING = new ThreadLocal<>();
    /** Each open connection's socket; weak, so a connection dropped unclosed does not stay here. */
    private static final Map<Connection, Socket> SOCKETS = Collections.synchronizedMap(new WeakHashMap<>());

    /** For the driver, which creates the factory by its class name. */
    public TrackedSocketFactory() {}

    /** What opens one connection, given the driver's {@code socketFactory} option to set (null: none). */
    interface Opener {
        Connection open(@Nullable String socketFactory) throws SQLException;
    }

    /**
     * Opens a connection with its socket recorded for {@link #cut}. Where the driver would load
     * another copy of this class (the driver and this source in different class loaders), the
     * connection is opened without it and {@link #cut} does nothing for it.
     */
    static Connection connect(Opener opener) throws SQLException {
        return connect(opener, new Opening());
    }

    /**
     * As {@link #connect(Opener)}, each socket the driver creates added to {@code created} as it is created, where
     * another thread may cut it while the connection is being opened ({@link Opening#cut}).
     */
    static Connection connect(Opener opener, Opening created) throws SQLException {
        if (!driverUsesThisClass()) {
            return opener.open(null);
        }
        OPENING.set(created);
        Connection connection;
        try {
            connection = opener.open(TrackedSocketFactory.class.getName());
        } finally {
            OPENING.remove();
        }
        if (!created.isEmpty()) {
            SOCKETS.put(connection, created.get(created.size() - 1)); // the one it connected last is the one kept
        }
        return connection;
    }

    /**
     * Closes the socket below {@code connection}, ending a read another thread is blocked in (it fails
     * with a closed socket). Nothing is sent: meant after the driver's own close had its chance.
     */
    static void cut(Connection connection) {
        Socket socket = SOCKETS.remove(connection);
        if (socket != null) {
            close(socket);
        }
    }

    private static boolean driverUsesThisClass() {
        try {
            ClassLoader driverLoader = org.mariadb.jdbc.Driver.class.getClassLoader();
            return Class.forName(TrackedSocketFactory.class.getName(), false, driverLoader) == TrackedSocketFactory.class;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * The sockets of a connection being opened: {@link #cut} closes them, and any created after it at once, so that
     * a connect or handshake blocked on a network that passes nothing ends. Thread-safe.
     */
    static final class Opening extends ArrayList<Socket> {
        private static final long serialVersionUID = 1L;
        private boolean cut;

        @Override
        public synchronized boolean add(Socket socket) {
            if (cut) {
                close(socket);
            }
            return super.add(socket);
        }

        /** Closes the sockets created so far and from now on. */
        synchronized void cut() {
            cut = true;
            forEach(TrackedSocketFactory::close);
        }
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closed either way
        }
    }

    /** An unconnected socket, as the driver asks for (it connects it with its own timeout). */
    @Override
    public Socket createSocket() {
        Socket socket = new Socket();
        List<Socket> created = OPENING.get();
        if (created != null) {
            created.add(socket);
        }
        return socket;
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return SocketFactory.getDefault().createSocket(host, port);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return SocketFactory.getDefault().createSocket(host, port, localHost, localPort);
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return SocketFactory.getDefault().createSocket(host, port);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return SocketFactory.getDefault().createSocket(address, port, localAddress, localPort);
    }
}
