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

    @Test
    void schemaChangesReadsItsDocumentedValues() {
        Configuration conf = new Configuration();
        assertThat(conf.get(CdcSourceOptions.SCHEMA_CHANGES)).isEqualTo(SchemaChangePolicy.EMIT);
        for (SchemaChangePolicy policy : SchemaChangePolicy.values()) {
            conf.setString(CdcSourceOptions.SCHEMA_CHANGES.key(), policy.toString());
            assertThat(conf.get(CdcSourceOptions.SCHEMA_CHANGES)).isEqualTo(policy);
        }
        conf.setString(CdcSourceOptions.SCHEMA_CHANGES.key(), "ignore");
        assertThatThrownBy(() -> conf.get(CdcSourceOptions.SCHEMA_CHANGES)).hasMessageContaining("ignore");
    }

    @Test
    void transactionBoundariesReadItsDocumentedValuesAndTheBound() {
        Configuration conf = new Configuration();
        assertThat(conf.get(CdcSourceOptions.TRANSACTION_BOUNDARIES)).isEqualTo(TransactionBoundaries.SPLIT);
        assertThat(conf.get(CdcSourceOptions.TRANSACTION_MAX_CHANGES)).isEqualTo(100_000);
        for (TransactionBoundaries boundaries : TransactionBoundaries.values()) {
            conf.setString(CdcSourceOptions.TRANSACTION_BOUNDARIES.key(), boundaries.toString());
            assertThat(conf.get(CdcSourceOptions.TRANSACTION_BOUNDARIES)).isEqualTo(boundaries);
        }
        conf.setString(CdcSourceOptions.TRANSACTION_BOUNDARIES.key(), "whole");
        assertThatThrownBy(() -> conf.get(CdcSourceOptions.TRANSACTION_BOUNDARIES)).hasMessageContaining("whole");
    }

    @Test
    void schemaHistoryRetentionDefaultsTo256AndIsBounded() {
        Configuration conf = new Configuration();
        assertThat(conf.get(CdcSourceOptions.SCHEMA_HISTORY_RETENTION)).isEqualTo(256);
        conf.setString(CdcSourceOptions.SCHEMA_HISTORY_RETENTION.key(), "16");
        assertThat(conf.get(CdcSourceOptions.SCHEMA_HISTORY_RETENTION)).isEqualTo(16);
        assertThat(CdcSourceOptions.SCHEMA_HISTORY_RETENTION.key()).isEqualTo("schema-history.retention");
    }
}
