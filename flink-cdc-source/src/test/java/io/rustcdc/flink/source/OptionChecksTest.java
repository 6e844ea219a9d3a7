package io.rustcdc.flink.source;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class OptionChecksTest {
    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Duration TEN_MINUTES = Duration.ofMinutes(10);

    @Test
    void aValueMustBeSetAndNotBlank() {
        assertConfigError(() -> OptionChecks.requireValue("database-name", null), "Option 'database-name' is required");
        assertConfigError(() -> OptionChecks.requireValue("database-name", " "), "Option 'database-name' is required");
        assertThatCode(() -> OptionChecks.requireValue("database-name", "shop")).doesNotThrowAnyException();
    }

    @Test
    void aNumberMustBeWithinItsBoundsBothIncluded() {
        assertConfigError(() -> OptionChecks.requireRange("port", 0, 1, 65535), "Option 'port' must be 1 to 65535, not 0");
        assertConfigError(() -> OptionChecks.requireRange("port", 65536, 1, 65535),
                "Option 'port' must be 1 to 65535, not 65536");
        assertConfigError(() -> OptionChecks.requireRange("page", 1, 2, 9, "why"), "Option 'page' must be 2 to 9, not 1 (why)");
        assertThatCode(() -> {
            OptionChecks.requireRange("port", 1, 1, 65535);
            OptionChecks.requireRange("port", 65535, 1, 65535);
            OptionChecks.requireRange("page", 9, 2, 9, "why");
        }).doesNotThrowAnyException();
    }

    @Test
    void aDurationMustBeWithinItsBoundsBothIncluded() {
        assertConfigError(() -> OptionChecks.requireDuration("interval", Duration.ofMillis(999), SECOND, TEN_MINUTES,
                "1 s to 10 min"), "Option 'interval' must be 1 s to 10 min, not PT0.999S");
        assertConfigError(() -> OptionChecks.requireDuration("interval", TEN_MINUTES.plusMillis(1), SECOND, TEN_MINUTES,
                "1 s to 10 min"), "Option 'interval' must be 1 s to 10 min, not PT10M0.001S");
        assertThatCode(() -> {
            OptionChecks.requireDuration("interval", SECOND, SECOND, TEN_MINUTES, "1 s to 10 min");
            OptionChecks.requireDuration("interval", TEN_MINUTES, SECOND, TEN_MINUTES, "1 s to 10 min");
        }).doesNotThrowAnyException();
    }

    private static void assertConfigError(ThrowingCallable check, String message) {
        assertThatThrownBy(check).isInstanceOfSatisfying(CdcException.class,
                e -> org.assertj.core.api.Assertions.assertThat(e.kind()).isEqualTo(CdcException.Kind.CONFIGURATION))
                .hasMessage(message);
    }
}
