package io.rustcdc.flink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import io.rustcdc.flink.postgres.testing.PostgresExtension;
import io.rustcdc.flink.postgres.testing.PostgresTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.testing.Poll;
import io.rustcdc.flink.testing.net.FaultProxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A server that accepts the TCP connection and never answers the login (a {@link FaultProxy} that
 * stalls every new link): each attempt fails within {@code connect.timeout}, naming the server and
 * the option, and is retried as a connection failure; once the server answers again, a retry succeeds.
 */
@ExtendWith(PostgresExtension.class)
@Timeout(120)
class PostgresLoginTimeoutITCase {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private PostgresDatabase db;

    @BeforeEach
    void setUp(PostgresDatabase db) {
        this.db = db;
    }

    @Test
    void eachAttemptEndsWithinTheConnectTimeoutAndIsRetried() {
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port())) {
            proxy.stallAll();
            CountedRetries retries = retrying(proxy, ConnectionRetry.of(2, Duration.ofMillis(100), Duration.ofMillis(200)));
            long started = System.nanoTime();
            assertThatThrownBy(() -> retries.connector().openSession()).isInstanceOfSatisfying(CdcException.class,
                    e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.CONNECTION))
                    .hasMessageContaining("Gave up on opening a postgres catalogue session after 2 retries")
                    .hasMessageContaining("PostgreSQL at " + db.replicationUser() + "@" + proxy.host() + ":"
                            + proxy.port() + "/" + db.name() + " did not complete the connection and login within "
                            + "'connect.timeout' (2 s)")
                    .hasMessageNotContaining(db.replicationPassword());
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(proxy.accepted()).as("attempts").isEqualTo(3);
            assertThat(retries.count()).isEqualTo(2);
            // three attempts of the timeout each, two short back-offs, no attempt that waits longer
            assertThat(took).isBetween(TIMEOUT.multipliedBy(3), TIMEOUT.multipliedBy(3).plusSeconds(3));
        }
    }

    @Test
    void aRetryAfterTheServerAnswersAgainSucceeds() throws Exception {
        try (FaultProxy proxy = FaultProxy.to(db.host(), db.port())) {
            proxy.stallAll();
            CountedRetries retries = retrying(proxy, ConnectionRetry.of(20, Duration.ofMillis(100), Duration.ofMillis(300)));
            CompletableFuture<CatalogSession<PostgresPosition, PostgresChunkMark>> opening =
                    CompletableFuture.supplyAsync(() -> retries.connector().openSession());
            Poll.until("two timed-out attempts", Duration.ofSeconds(30), () -> retries.count() >= 2);
            proxy.resumeAll();
            try (CatalogSession<PostgresPosition, PostgresChunkMark> session = opening.get(30, TimeUnit.SECONDS)) {
                assertThat(session.currentPosition()).isNotNull();
            }
            assertThat(retries.count()).isBetween(2L, 20L);
        }
    }

    private CountedRetries retrying(FaultProxy proxy, ConnectionRetry retry) {
        return new CountedRetries(PostgresConnector.create(PostgresTestConfigs.builder(db).hostname(proxy.host())
                .port(proxy.port()).connectTimeout(TIMEOUT).connectionRetry(retry).build()));
    }
}
