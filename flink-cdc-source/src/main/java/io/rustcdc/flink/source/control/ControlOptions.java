package io.rustcdc.flink.source.control;

import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** The options of the on-demand snapshot control (docs/operations.md); the builder reads them in {@code options}. */
@PublicEvolving
public final class ControlOptions {
    public static final ConfigOption<String> CONTROL_PATH = ConfigOptions.key("scan.control.path")
            .stringType()
            .noDefaultValue()
            .withDescription("A directory on a Flink file system (file://, hdfs://, s3://, ...) that every JobManager "
                    + "of the job can read and write, for example under the checkpoint storage, one per source: "
                    + "the enumerator polls it for on-demand snapshot requests (request, pause, resume, stop, "
                    + "written by io.rustcdc.flink.source.control.SnapshotControl) and writes their results and "
                    + "the state readout there. Unset: no control.");

    public static final ConfigOption<Duration> CONTROL_INTERVAL = ConfigOptions.key("scan.control.interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(5))
            .withDescription("How often the enumerator looks for snapshot control requests in 'scan.control.path' "
                    + "and rewrites the state readout there.");

    private ControlOptions() {}
}
