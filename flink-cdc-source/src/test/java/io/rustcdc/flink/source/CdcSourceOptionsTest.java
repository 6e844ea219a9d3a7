package io.rustcdc.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/** The handoff and discovery options read as a SQL WITH clause writes them. */
class CdcSourceOptionsTest {

    @Test
    void sinkGuaranteeReadsItsDocumentedValues() {
        Configuration conf = new Configuration();
        assertThat(conf.get(CdcSourceOptions.SINK_GUARANTEE)).isEqualTo(SinkGuarantee.EXACTLY_ONCE);
        conf.setString(CdcSourceOptions.SINK_GUARANTEE.key(), "at-least-once");
        assertThat(conf.get(CdcSourceOptions.SINK_GUARANTEE)).isEqualTo(SinkGuarantee.AT_LEAST_ONCE);
        conf.setString(CdcSourceOptions.SINK_GUARANTEE.key(), "exactly-once");
        assertThat(conf.get(CdcSourceOptions.SINK_GUARANTEE)).isEqualTo(SinkGuarantee.EXACTLY_ONCE);
        conf.setString(CdcSourceOptions.SINK_GUARANTEE.key(), "sometimes");
        assertThatThrownBy(() -> conf.get(CdcSourceOptions.SINK_GUARANTEE)).hasMessageContaining("sometimes");
    }

    @Test
    void tableDiscoveryIntervalIsADurationAndNotNegative() {
        Configuration conf = new Configuration();
        assertThat(conf.get(CdcSourceOptions.TABLE_DISCOVERY_INTERVAL)).isEqualTo(Duration.ofSeconds(10));
        conf.setString(CdcSourceOptions.TABLE_DISCOVERY_INTERVAL.key(), "0 s");
        assertThat(conf.get(CdcSourceOptions.TABLE_DISCOVERY_INTERVAL)).isZero();
    }
}
