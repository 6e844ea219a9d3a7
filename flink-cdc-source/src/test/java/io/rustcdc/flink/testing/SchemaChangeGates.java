package io.rustcdc.flink.testing;

import io.rustcdc.flink.source.SchemaChangePolicy;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.deserializer.SchemaChangeGate;
import io.rustcdc.flink.source.model.ChangeEvent;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.Collector;

/** Puts a connector's real schema change events through the {@code schema-changes} policy in tests. */
public final class SchemaChangeGates {
    private SchemaChangeGates() {}

    /** Passes {@code event} through the policy's gate; throws what the gate throws when it refuses it. */
    public static void apply(SchemaChangePolicy policy, ChangeEvent event) throws Exception {
        SchemaChangeGate.wrap(ChangeEventDeserializer.events(), policy, new UnregisteredMetricsGroup())
                .deserialize(event, new Collector<>() {
                    @Override
                    public void collect(ChangeEvent record) {}

                    @Override
                    public void close() {}
                });
    }
}
