package io.rustcdc.flink.testing.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A loopback TCP proxy between a client under test and a server, with plain sockets, that breaks
 * the network on request: it {@linkplain #cut cuts} connections (both ends reset), {@linkplain
 * Link#stall stalls} them (nothing forwarded, sockets kept open, as in a partition), {@linkplain
 * Link#slow slows} them, {@linkplain Link#drop drops} one direction (a half-open connection), and
 * {@linkplain #retarget points} new connections at another server (a failover).
 * Each accepted connection is a {@link Link}; {@link #links} picks some by the first bytes the
 * client sent (a startup message names the database and, for PostgreSQL, the replication mode).
 * Thread-safe.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.to("127.0.0.1", db.port())) {
 *     // connect the source to 127.0.0.1:proxy.port(), then
 *     proxy.cut(link -> true);
 * }
 * }</pre>
 */
public final class FaultProxy implements AutoCloseable {
    /** A direction of a link. */
    public enum Direction {
        /** Client to server. */
        UPSTREAM,
        /** Server to client. */
        DOWNSTREAM
    }

    private static final int OPENING_BYTES = 512;

    private volatile InetSocketAddress target;
    private final ServerSocket listener;
    private final Thread acceptor;
    private final List<Link> links = new CopyOnWriteArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile boolean refusing;
    private volatile boolean stallNew;
    private volatile int rateNew;
    private volatile boolean closed;

    private FaultProxy(String targetHost, int targetPort) throws IOException {
        this.target = new InetSocketAddress(targetHost, targetPort);
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "fault-proxy-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy listening on a free loopback port, forwarding to {@code host:port}. */
    public static FaultProxy to(String host, int port) {
        try {
            return new FaultProxy(host, port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String host() {
        return listener.getInetAddress().getHostAddress();
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** How many connections this proxy has accepted so far. */
    public int accepted() {
        return accepted.get();
    }

    /** The links open now whose client's first bytes (as ISO-8859-1 text) satisfy {@code opening}. */
    public List<Link> links(Predicate<String> opening) {
        return links.stream().filter(l -> !l.isClosed() && opening.test(l.opening())).toList();
    }

    /** Resets every open link that {@code opening} selects (see {@link #links}); returns how many. */
    public int cut(Predicate<String> opening) {
        List<Link> chosen = links(opening);
        chosen.forEach(Link::cut);
        return chosen.size();
    }

    /** Resets every open link. */
    public int cutAll() {
        return cut(o -> true);
    }

    /** Stalls every open link and every link accepted from now on, as a partition does. */
    public void stallAll() {
        stallNew = true;
        links.forEach(Link::stall);
    }

    /** Ends {@link #stallAll}: links forward again. */
    public void resumeAll() {
        stallNew = false;
        links.forEach(Link::resume);
    }

    /**
     * Forwards connections accepted from now on to {@code host:port} (another server: a failover);
     * the open links stay with the server they were made to.
     */
    public void retarget(String host, int port) {
        this.target = new InetSocketAddress(host, port);
    }

    /** Limits every open link and every link accepted from now on to about {@code bytesPerSecond} each way; 0 lifts it. */
    public void slowAll(int bytesPerSecond) {
        rateNew = bytesPerSecond;
        links.forEach(l -> l.slow(bytesPerSecond));
    }

    /** While set, a new connection is accepted and closed at once, as by a server that is down. */
    public void refuse(boolean refuse) {
        this.refusing = refuse;
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            accepted.incrementAndGet();
            if (refusing) {
                Link.reset(client);
                continue;
            }
            try {
                Socket server = new Socket();
                server.connect(target, 10_000);
                Link link = new Link(client, server, stallNew);
                link.slow(rateNew);
                links.add(link);
                links.removeIf(Link::isClosed);
                link.start();
            } catch (IOException e) {
                Link.reset(client);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        links.forEach(Link::cut);
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One proxied connection: a client socket, a server socket and a pump thread per direction. */
    public static final class Link {
        private final Socket client;
        private final Socket server;
        private final Pump upstream;
        private final Pump downstream;
        private final StringBuffer opening = new StringBuffer();
        private volatile boolean closed;

        Link(Socket client, Socket server, boolean stalled) {
            this.client = client;
            this.server = server;
            this.upstream = new Pump(this, client, server, true, stalled);
            this.downstream = new Pump(this, server, client, false, stalled);
        }

        void start() {
            upstream.start();
            downstream.start();
        }

        /** The first bytes the client sent, as ISO-8859-1 text. */
        public String opening() {
            return opening.toString();
        }

        public boolean isClosed() {
            return closed;
        }

        /** Resets both ends at once (RST, no orderly close), as a cut cable or a killed middlebox does. */
        public void cut() {
            closed = true;
            reset(client);
            reset(server);
        }

        /** Stops forwarding in both directions; the sockets stay open and nothing is lost, only held. */
        public void stall() {
            upstream.setStalled(true);
            downstream.setStalled(true);
        }

        /** Forwards again what was held and what follows. */
        public void resume() {
            upstream.setStalled(false);
            downstream.setStalled(false);
        }

        /** Limits each direction to about {@code bytesPerSecond}; 0 lifts the limit. */
        public void slow(int bytesPerSecond) {
            upstream.rate = bytesPerSecond;
            downstream.rate = bytesPerSecond;
        }

        /** The bytes forwarded (not held, not dropped) in {@code direction} so far. */
        public long forwarded(Direction direction) {
            return (direction == Direction.UPSTREAM ? upstream : downstream).forwarded.get();
        }

        /** Discards what flows in {@code direction} from now on: the other direction still works. */
        public void drop(Direction direction) {
            (direction == Direction.UPSTREAM ? upstream : downstream).dropping = true;
        }

        static void reset(Socket s) {
            try {
                s.setSoLinger(true, 0);
            } catch (SocketException ignored) {
                // already closed
            }
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed
            }
        }

        private final AtomicInteger pumpsEnded = new AtomicInteger();

        /** One direction saw the end of its stream and passed it on; the link ends with both. */
        void pumpEnded() {
            if (pumpsEnded.incrementAndGet() == 2) {
                ended();
            }
        }

        void ended() {
            if (!closed) {
                closed = true;
                try {
                    client.close();
                    server.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }

        void record(byte[] bytes, int n) {
            if (opening.length() < OPENING_BYTES) {
                opening.append(new String(bytes, 0, Math.min(n, OPENING_BYTES - opening.length()),
                        StandardCharsets.ISO_8859_1));
            }
        }
    }

    /** Copies one direction of a link, holding chunks while stalled, discarding them while dropping. */
    private static final class Pump extends Thread {
        private final Link link;
        private final Socket from;
        private final Socket to;
        private final boolean upstream;
        private boolean stalled;
        volatile int rate;
        volatile boolean dropping;
        final AtomicLong forwarded = new AtomicLong();

        Pump(Link link, Socket from, Socket to, boolean upstream, boolean stalled) {
            super("fault-proxy-" + (upstream ? "up-" : "down-") + from.getPort());
            setDaemon(true);
            this.link = link;
            this.from = from;
            this.to = to;
            this.upstream = upstream;
            this.stalled = stalled;
        }

        synchronized void setStalled(boolean stalled) {
            this.stalled = stalled;
            notifyAll();
        }

        private synchronized void awaitFlowing() throws InterruptedException {
            while (stalled && !link.isClosed()) {
                wait(100);
            }
        }

        @Override
        public void run() {
            byte[] buffer = new byte[8192];
            try {
                InputStream in = from.getInputStream(); // not closed here: that would close the socket
                OutputStream out = to.getOutputStream();
                while (true) {
                    int n = in.read(buffer);
                    if (n < 0) {
                        awaitFlowing(); // a stalled link does not pass the close on either
                        to.shutdownOutput();
                        link.pumpEnded();
                        return;
                    }
                    if (upstream) {
                        link.record(buffer, n);
                    }
                    awaitFlowing();
                    if (link.isClosed()) {
                        return;
                    }
                    if (dropping) {
                        continue;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                    forwarded.addAndGet(n);
                    int limit = rate;
                    if (limit > 0) {
                        Thread.sleep(Math.max(1, n * 1000L / limit));
                    }
                }
            } catch (IOException | InterruptedException e) {
                link.ended();
            }
        }
    }
}
