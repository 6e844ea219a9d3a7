package io.rustcdc.flink.source;

import java.time.Duration;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * The checks a configuration's {@code build()} makes of one option, each failing with a {@link
 * CdcException} of kind CONFIGURATION that names the option and what it may be: {@code Option
 * 'port' must be 1 to 65535, not 0}.
 *
 * <pre>{@code
 * OptionChecks.requireRange("port", port, 1, 65535);
 * OptionChecks.requireDuration("status-interval", interval, Duration.ofSeconds(1), Duration.ofMinutes(10), "1 s to 10 min");
 * }</pre>
 */
@Internal
public final class OptionChecks {
    private OptionChecks() {}

    /** Fails unless {@code value} is set and not blank. */
    public static void requireValue(String option, @Nullable String value) {
        if (value == null || value.isBlank()) {
            throw configuration("Option '" + option + "' is required");
        }
    }

    /** Fails unless {@code min <= value <= max}. */
    public static void requireRange(String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw configuration(outOfRange(option, min + " to " + max, value));
        }
    }

    /** Fails unless {@code min <= value <= max}, saying {@code reason} (in parentheses) after the range. */
    public static void requireRange(String option, long value, long min, long max, String reason) {
        if (value < min || value > max) {
            throw configuration(outOfRange(option, min + " to " + max, value) + " (" + reason + ")");
        }
    }

    /** Fails unless {@code min <= value <= max}; {@code range} says them for people ({@code "1 s to 10 min"}). */
    public static void requireDuration(String option, Duration value, Duration min, Duration max, String range) {
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw configuration(outOfRange(option, range, value));
        }
    }

    private static String outOfRange(String option, String range, Object value) {
        return "Option '" + option + "' must be " + range + ", not " + value;
    }

    private static CdcException configuration(String message) {
        return new CdcException(CdcException.Kind.CONFIGURATION, message);
    }
}
