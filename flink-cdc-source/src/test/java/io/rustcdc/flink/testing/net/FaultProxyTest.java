package io.rustcdc.flink.testing.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.testing.Poll;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The proxy itself, between two plain sockets of this test: forwards, cuts, stalls, slows, drops one way. */
@Timeout(30)
class FaultProxyTest {
    private ServerSocket server;
    private final SynchronousQueue<Socket> serverSides = new SynchronousQueue<>();
    private FaultProxy proxy;

    @BeforeEach
    void setUp() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    serverSides.put(server.accept());
                }
            } catch (IOException | InterruptedException closed) {
                // the test ended
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        proxy = FaultProxy.to("127.0.0.1", server.getLocalPort());
    }

    @AfterEach
    void tearDown() throws IOException {
        proxy.close();
        server.close();
    }

    @Test
    void forwardsBothWaysAndRecordsTheOpening() throws Exception {
        try (Socket client = connect(); Socket far = accepted()) {
            send(client, "startup replication=database");
            assertThat(receive(far, 28)).isEqualTo("startup replication=database");
            send(far, "welcome");
            assertThat(receive(client, 7)).isEqualTo("welcome");
            assertThat(proxy.links(o -> o.contains("replication"))).hasSize(1);
            assertThat(proxy.links(o -> o.contains("other"))).isEmpty();
            assertThat(proxy.accepted()).isEqualTo(1);
        }
    }

    @Test
    void cutResetsBothEnds() throws Exception {
        try (Socket client = connect(); Socket far = accepted()) {
            send(client, "x");
            receive(far, 1);
            assertThat(proxy.cutAll()).isEqualTo(1);
            assertEnded(client);
            assertEnded(far);
        }
    }

    @Test
    void stallHoldsEverythingUntilResumed() throws Exception {
        try (Socket client = connect(); Socket far = accepted()) {
            send(client, "a");
            receive(far, 1);
            proxy.stallAll();
            send(client, "held");
            send(far, "back");
            assertSilent(far);
            assertSilent(client);
            proxy.resumeAll();
            assertThat(receive(far, 4)).isEqualTo("held");
            assertThat(receive(client, 4)).isEqualTo("back");
        }
    }

    @Test
    void stallAlsoHoldsLinksAcceptedDuringIt() throws Exception {
        proxy.stallAll();
        try (Socket client = connect(); Socket far = accepted()) {
            send(client, "new");
            assertSilent(far);
            proxy.resumeAll();
            assertThat(receive(far, 3)).isEqualTo("new");
        }
    }

    @Test
    void droppedDirectionLosesItsBytesWhileTheOtherWorks() throws Exception {
        try (Socket client = connect(); Socket far = accepted()) {
            send(client, "a");
            receive(far, 1);
            proxy.links(o -> true).get(0).drop(FaultProxy.Direction.UPSTREAM);
            send(client, "lost");
            assertSilent(far);
            send(far, "still");
            assertThat(receive(client, 5)).isEqualTo("still");
        }
    }

    @Test
    void slowLimitsTheRate() throws Exception {
        try (Socket client = connect(); Socket far = accepted()) {
            send(client, "a");
            receive(far, 1);
            proxy.links(o -> true).get(0).slow(20_000);
            long start = System.nanoTime();
            client.getOutputStream().write(new byte[40_000]);
            far.setSoTimeout(10_000);
            far.getInputStream().readNBytes(40_000);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(1_500);
        }
    }

    @Test
    void slowAllAlsoLimitsLinksAcceptedLaterAndEachLinkCountsWhatItForwarded() throws Exception {
        proxy.slowAll(20_000);
        try (Socket client = connect(); Socket far = accepted()) {
            long start = System.nanoTime();
            client.getOutputStream().write(new byte[40_000]);
            far.setSoTimeout(10_000);
            far.getInputStream().readNBytes(40_000);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(1_500);
            send(far, "ok");
            receive(client, 2);
            FaultProxy.Link link = proxy.links(o -> true).get(0);
            // counted just after each write: the far end may read the bytes a moment before
            Poll.until("the counts", Duration.ofSeconds(5), () -> link.forwarded(FaultProxy.Direction.UPSTREAM) == 40_000
                    && link.forwarded(FaultProxy.Direction.DOWNSTREAM) == 2);
        }
    }

    @Test
    void retargetSendsNewConnectionsToTheOtherServerAndKeepsOpenLinks() throws Exception {
        try (ServerSocket other = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                Socket before = connect();
                Socket farBefore = accepted()) {
            proxy.retarget("127.0.0.1", other.getLocalPort());
            try (Socket after = connect();
                    Socket farAfter = other.accept()) {
                send(after, "new");
                assertThat(receive(farAfter, 3)).isEqualTo("new");
                send(before, "old");
                assertThat(receive(farBefore, 3)).as("an open link stays with its server").isEqualTo("old");
            }
        }
    }

    @Test
    void refusingClosesNewConnectionsAtOnce() throws Exception {
        proxy.refuse(true);
        try (Socket client = connect()) {
            assertEnded(client);
        }
        proxy.refuse(false);
        try (Socket client = connect(); Socket far = accepted()) {
            send(client, "ok");
            assertThat(receive(far, 2)).isEqualTo("ok");
        }
    }

    private Socket connect() throws IOException {
        return new Socket(proxy.host(), proxy.port());
    }

    private Socket accepted() throws InterruptedException {
        Socket s = serverSides.poll(10, TimeUnit.SECONDS);
        assertThat(s).as("the proxy connected to the server").isNotNull();
        return s;
    }

    private static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
    }

    private static String receive(Socket s, int n) throws IOException {
        s.setSoTimeout(5_000);
        return new String(s.getInputStream().readNBytes(n), StandardCharsets.US_ASCII);
    }

    private static void assertSilent(Socket s) throws IOException {
        s.setSoTimeout(500);
        assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
    }

    /** The socket's stream ends or is reset within 5 s. */
    private static void assertEnded(Socket s) throws IOException {
        s.setSoTimeout(5_000);
        InputStream in = s.getInputStream();
        try {
            assertThat(in.read()).isEqualTo(-1);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection is still open", e);
        } catch (IOException reset) {
            assertThat(reset).hasMessageContaining("reset");
        }
    }
}
