package io.rustcdc.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/**
 * The back-off of {@link ConnectionRetry}: its bounds for random policies and draws (the seed is
 * printed; {@code -Drustcdc.retry.seed=N} replays a run), its jitter, and which failures it retries.
 */
class ConnectionRetryTest {
    private static final ConfigOption<Integer> PORT = ConfigOptions.key("port").intType().defaultValue(1234);

    @Test
    void defaultsAreFiveRetriesFrom300MillisecondsUpTo10Seconds() {
        ConnectionRetry retry = ConnectionRetry.defaults();
        assertThat(retry.maxRetries()).isEqualTo(5);
        assertThat(retry.initialDelay()).isEqualTo(Duration.ofMillis(300));
        assertThat(retry.maxDelay()).isEqualTo(Duration.ofSeconds(10));
        assertThat(ConnectionSettings.builder(1).hostname("h").username("u").password(Secret.of("p")).build().retry())
                .isEqualTo(retry);
        assertThat(ConnectionRetry.none().maxRetries()).isZero();
    }

    @Test
    void eachDelayLiesBetweenHalfAndAllOfItsCappedExponentialStep() {
        long seed = Long.getLong("rustcdc.retry.seed", System.nanoTime());
        System.out.println("ConnectionRetryTest seed " + seed + " (replay with -Drustcdc.retry.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int policy = 0; policy < 200; policy++) {
            Duration initial = Duration.ofMillis(1 + random.nextInt(5_000));
            Duration max = initial.plusMillis(random.nextInt(600_000 - (int) initial.toMillis()));
            ConnectionRetry retry = ConnectionRetry.of(1 + random.nextInt(50), initial, max);
            for (int n = 1; n <= 70; n++) {
                long step = Math.min(max.toNanos(), n > 62 ? Long.MAX_VALUE
                        : (long) Math.min((double) Long.MAX_VALUE, initial.toNanos() * Math.pow(2, n - 1)));
                Duration delay = retry.delay(n, random::nextDouble);
                assertThat(delay.toNanos()).as("seed %d, %s, retry %d", seed, retry, n)
                        .isBetween(step / 2, step).isLessThanOrEqualTo(max.toNanos());
            }
        }
    }

    @Test
    void theDrawPicksTheDelayInsideTheStep() {
        ConnectionRetry retry = ConnectionRetry.of(5, Duration.ofMillis(300), Duration.ofSeconds(10));
        assertThat(retry.delay(1, () -> 0.0)).isEqualTo(Duration.ofMillis(150));
        assertThat(retry.delay(1, () -> 0.5)).isEqualTo(Duration.ofMillis(225));
        assertThat(retry.delay(2, () -> 0.0)).isEqualTo(Duration.ofMillis(300));
        assertThat(retry.delay(3, () -> 0.0)).isEqualTo(Duration.ofMillis(600));
        assertThat(retry.delay(6, () -> 0.0)).isEqualTo(Duration.ofMillis(4_800));
        assertThat(retry.delay(7, () -> 0.0)).isEqualTo(Duration.ofSeconds(5)); // capped: 19.2 s -> 10 s
        assertThat(retry.delay(1_000, () -> 0.999_999_999).toNanos()).isBetween(9_999_000_000L, 10_000_000_000L);
        assertThatThrownBy(() -> retry.delay(0, () -> 0.0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> retry.delay(1, () -> 1.0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void onlyConnectionFailuresAreRetried() {
        for (CdcException.Kind kind : CdcException.Kind.values()) {
            CdcException failure = new CdcException(kind, "x");
            assertThat(ConnectionRetry.retries(failure)).as("%s", kind).isEqualTo(kind == CdcException.Kind.CONNECTION);
            assertThat(ConnectionRetry.retries(new RuntimeException("wrapped", failure))).as("wrapped %s", kind)
                    .isEqualTo(kind == CdcException.Kind.CONNECTION);
        }
        // the first CdcException of the chain decides, as for FinalFailure
        assertThat(ConnectionRetry.retries(new CdcException(CdcException.Kind.PREREQUISITE, "login refused",
                new CdcException(CdcException.Kind.CONNECTION, "x")))).isFalse();
        assertThat(ConnectionRetry.retries(new IllegalStateException("a bug"))).isFalse();
        // a cancelled task's interrupted read is not a connection to retry
        assertThat(ConnectionRetry.retries(new CdcException(CdcException.Kind.CONNECTION, "interrupted",
                new InterruptedException()))).isFalse();
        assertThat(ConnectionRetry.retries(new CdcException(CdcException.Kind.CONNECTION, "interrupted",
                new java.nio.channels.ClosedByInterruptException()))).isFalse();
        assertThat(ConnectionRetry.retries(new CdcException(CdcException.Kind.CONNECTION, "read timed out",
                new java.net.SocketTimeoutException()))).as("a read timeout").isTrue();
        assertThat(ConnectionRetry.retries(new RuntimeException(new InterruptedException()))).isFalse();
        assertThat(ConnectionRetry.retries(null)).isFalse();
    }

    @Test
    void eachWrongOptionIsNamed() {
        assertThatThrownBy(() -> ConnectionRetry.of(-1, Duration.ofMillis(1), Duration.ofMillis(1)))
                .hasMessageContaining("'connect.max-retries' must be 0 (no retry) or more, not -1");
        assertThatThrownBy(() -> ConnectionRetry.of(1, Duration.ZERO, Duration.ofMillis(1)))
                .hasMessageContaining("'connect.retry.initial-delay' must be 1 ms to 10 min");
        assertThatThrownBy(() -> ConnectionRetry.of(1, Duration.ofMillis(1), Duration.ofMinutes(11)))
                .hasMessageContaining("'connect.retry.max-delay' must be 1 ms to 10 min");
        assertThatThrownBy(() -> ConnectionRetry.of(1, Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOfSatisfying(CdcException.class,
                        e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.CONFIGURATION))
                .hasMessageContaining("'connect.retry.max-delay' (PT1S) must not be below 'connect.retry.initial-delay' (PT2S)");
        assertThat(ConnectionRetry.of(0, Duration.ofMillis(1), Duration.ofMinutes(10)).toString()).isEqualTo("no retry");
    }

    @Test
    void theOptionsAreReadByTheirNames() {
        ConnectionSettings settings = ConnectionSettings.builder(1234).options(Configuration.fromMap(Map.of(
                "hostname", "h", "username", "u", "password", "p", "connect.max-retries", "9",
                "connect.retry.initial-delay", "50 ms", "connect.retry.max-delay", "2 s")), PORT).build();
        assertThat(settings.retry()).isEqualTo(ConnectionRetry.of(9, Duration.ofMillis(50), Duration.ofSeconds(2)));
        assertThat(settings.toString()).contains("up to 9 retries, 50 ms to 2000 ms apart").doesNotContain("=p,");
        assertThatThrownBy(() -> ConnectionSettings.builder(1234).options(Configuration.fromMap(Map.of(
                "hostname", "h", "username", "u", "password", "p", "connect.max-retries", "-2")), PORT).build())
                .hasMessageContaining("'connect.max-retries'");
    }
}
