package io.rustcdc.flink.source.control;

import io.rustcdc.flink.source.CdcException;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.annotation.Internal;

/** Where a source's snapshot control lives and how often its enumerator looks there. Immutable. */
@Internal
public record ControlSettings(ControlDirectory directory, Duration pollInterval) implements Serializable {
    public ControlSettings {
        Objects.requireNonNull(directory, "directory");
        if (pollInterval == null || pollInterval.isNegative() || pollInterval.isZero()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "The snapshot control's poll interval "
                    + "('scan.control.interval') must be positive, not " + pollInterval);
        }
    }
}
