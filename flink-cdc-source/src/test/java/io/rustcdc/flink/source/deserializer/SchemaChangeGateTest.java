package io.rustcdc.flink.source.deserializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.SchemaChangePolicy;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.TestPosition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/** The schema-changes policy on each class, its messages, and the counters. */
class SchemaChangeGateTest {
    private static final TableId TABLE = TableId.of("shop", "public", "orders");
    private static final RowShape.Column AMOUNT = RowShape.Column.of("amount", "numeric(12,4)", false);
    private static final RowShape.Column AMOUNT_TEXT = RowShape.Column.of("amount", "text", false);
    private static final RowShape.Column NOTE = RowShape.Column.of("note", "text", true);

    private static ChangeEvent schemaChange(List<ShapeChange> changes) {
        return ChangeEvent.builder(Op.SCHEMA_CHANGE, TABLE, SourceInfo.stream("test", new TestPosition(42), null))
                .after(SchemaChangeRows.of(TABLE, DdlType.ALTER_TABLE, null)).shapeChanges(changes).build();
    }

    private static final class Metrics extends UnregisteredMetricsGroup {
        final Map<String, Counter> counters = new HashMap<>();

        @Override
        public Counter counter(String name) {
            return counters.computeIfAbsent(name, n -> new SimpleCounter());
        }

        long count(String name) {
            return counters.get(name).getCount();
        }
    }

    private static final class Collected implements Collector<ChangeEvent> {
        final List<ChangeEvent> events = new ArrayList<>();

        @Override
        public void collect(ChangeEvent record) {
            events.add(record);
        }

        @Override
        public void close() {}
    }

    @Test
    void emitPassesEveryChangeAndCountsItByClass() throws Exception {
        Metrics metrics = new Metrics();
        ChangeEventDeserializer<ChangeEvent> gate = SchemaChangeGate.wrap(ChangeEventDeserializer.events(),
                SchemaChangePolicy.EMIT, metrics);
        Collected out = new Collected();
        gate.deserialize(schemaChange(List.of(ShapeChange.columnAdded(NOTE, 2), ShapeChange.columnRemoved(AMOUNT))), out);
        gate.deserialize(schemaChange(List.of(ShapeChange.unknown(List.of(AMOUNT), List.of(NOTE), "why"))), out);
        gate.deserialize(schemaChange(List.of()), out);
        assertThat(out.events).hasSize(3);
        assertThat(metrics.count("schemaChanges")).isEqualTo(3);
        assertThat(metrics.count("schemaChangesColumnAdded")).isEqualTo(1);
        assertThat(metrics.count("schemaChangesColumnRemoved")).isEqualTo(1);
        assertThat(metrics.count("schemaChangesUnknown")).isEqualTo(2); // one UNKNOWN, one unclassified
        assertThat(metrics.count("schemaChangesRejected")).isZero();
        assertThat(metrics.counters).containsKeys("schemaChangesTableReplaced", "schemaChangesPrimaryKeyChanged",
                "schemaChangesColumnNullabilityChanged", "schemaChangesColumnTypeChanged", "schemaChangesColumnRenamed",
                "schemaChangesTableCreated", "schemaChangesTableDropped", "schemaChangesUnchanged");
    }

    @Test
    void failNamesTableClassColumnsAndBothTypes() {
        Metrics metrics = new Metrics();
        ChangeEventDeserializer<ChangeEvent> gate = SchemaChangeGate.wrap(ChangeEventDeserializer.events(),
                SchemaChangePolicy.FAIL, metrics);
        assertThatThrownBy(() -> gate.deserialize(schemaChange(List.of(ShapeChange.columnChanged(AMOUNT, AMOUNT_TEXT))),
                new Collected()))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.CONFIGURATION))
                .hasMessageContaining("Table public.orders changed at the source at @42")
                .hasMessageContaining("column_type_changed amount numeric(12,4) NOT NULL -> amount text NOT NULL")
                .hasMessageContaining("'schema-changes' = 'fail' refuses")
                .hasMessageContaining("restore the job from its last checkpoint")
                .hasMessageContaining("'fail-on-unknown' or 'emit'");
        assertThat(metrics.count("schemaChangesRejected")).isEqualTo(1);
        assertThat(metrics.count("schemaChangesColumnTypeChanged")).isEqualTo(1);
    }

    @Test
    void eachPolicyOnEachClass() {
        RowShape shape = RowShape.of("public", "orders", List.of(AMOUNT), List.of());
        Map<ShapeChange, List<SchemaChangePolicy>> accepted = new HashMap<>();
        List<SchemaChangePolicy> all = List.of(SchemaChangePolicy.values());
        List<SchemaChangePolicy> notFail = List.of(SchemaChangePolicy.EMIT, SchemaChangePolicy.FAIL_ON_UNKNOWN,
                SchemaChangePolicy.ADDITIVE_ONLY);
        List<SchemaChangePolicy> classified = List.of(SchemaChangePolicy.EMIT, SchemaChangePolicy.FAIL_ON_UNKNOWN);
        accepted.put(ShapeChange.tableCreated(shape), notFail);
        accepted.put(ShapeChange.columnAdded(NOTE, 1), notFail);
        accepted.put(ShapeChange.columnAdded(RowShape.Column.of("n", "int", false), 1), classified);
        accepted.put(ShapeChange.columnAddedFilled(NOTE, 1, "its default fills the rows before it"), classified);
        accepted.put(ShapeChange.columnRemoved(AMOUNT), classified);
        accepted.put(ShapeChange.columnRenamed(AMOUNT, RowShape.Column.of("total", "numeric(12,4)", false)), classified);
        accepted.put(ShapeChange.columnChanged(AMOUNT, AMOUNT_TEXT), classified);
        accepted.put(ShapeChange.columnChanged(AMOUNT, RowShape.Column.of("amount", "numeric(12,4)", true)), classified);
        accepted.put(ShapeChange.primaryKeyChanged(List.of(), List.of("amount")), classified);
        accepted.put(ShapeChange.tableDropped(), classified);
        accepted.put(ShapeChange.tableReplaced(shape, "relation 1 replaced by 2"), classified);
        accepted.put(ShapeChange.unknown(List.of(AMOUNT), List.of(NOTE), "rename or drop and add"),
                List.of(SchemaChangePolicy.EMIT));
        accepted.put(ShapeChange.unchanged(), all);
        assertThat(accepted).hasSize(ShapeChange.Kind.values().length + 2); // an added NOT NULL column and a filled one
        for (Map.Entry<ShapeChange, List<SchemaChangePolicy>> e : accepted.entrySet()) {
            for (SchemaChangePolicy policy : all) {
                String refusal = SchemaChangeGate.refusal(policy, List.of(e.getKey()));
                assertThat(refusal == null).as(policy + " on " + e.getKey()).isEqualTo(e.getValue().contains(policy));
                if (refusal != null) {
                    assertThat(refusal).isEqualTo(e.getKey().describe());
                }
            }
        }
        // an event with no change at all is unclassified: every policy but emit refuses it
        for (SchemaChangePolicy policy : all) {
            String refusal = SchemaChangeGate.refusal(policy, List.of());
            if (policy == SchemaChangePolicy.EMIT) {
                assertThat(refusal).isNull();
            } else {
                assertThat(refusal).as(policy.toString()).contains("does not classify (unknown)");
            }
        }
    }

    @Test
    void aStatementClassifiedAsUnchangedPassesEveryPolicyAndIsNotCountedUnknown() throws Exception {
        for (SchemaChangePolicy policy : SchemaChangePolicy.values()) {
            Metrics metrics = new Metrics();
            ChangeEventDeserializer<ChangeEvent> gate = SchemaChangeGate.wrap(ChangeEventDeserializer.events(), policy,
                    metrics);
            Collected out = new Collected();
            gate.deserialize(schemaChange(List.of(ShapeChange.unchanged())), out);
            assertThat(out.events).as(policy.toString()).hasSize(1);
            assertThat(metrics.count("schemaChanges")).isEqualTo(1);
            assertThat(metrics.count("schemaChangesUnchanged")).isEqualTo(1);
            assertThat(metrics.count("schemaChangesUnknown")).as(policy.toString()).isZero();
            assertThat(metrics.count("schemaChangesRejected")).isZero();
            if (policy != SchemaChangePolicy.EMIT) {
                // while one that carries no classification at all is refused and counted unknown
                assertThatThrownBy(() -> gate.deserialize(schemaChange(List.of()), out))
                        .isInstanceOf(CdcException.class)
                        .hasMessageContaining("a change the connector does not classify (unknown)")
                        .hasMessageContaining("'schema-changes' = '" + policy + "' refuses")
                        .hasMessageContaining("('emit')");
                assertThat(metrics.count("schemaChangesUnknown")).isEqualTo(1);
                assertThat(metrics.count("schemaChangesRejected")).isEqualTo(1);
                assertThat(metrics.count("schemaChangesUnchanged")).isEqualTo(1);
            }
        }
    }

    @Test
    void aRefusalByTheDeserializerCountsAsRejected() {
        Metrics metrics = new Metrics();
        ChangeEventDeserializer<ChangeEvent> refusing = new ChangeEventDeserializer<>() {
            @Override
            public void deserialize(ChangeEvent event, Collector<ChangeEvent> out) {
                throw new CdcException(CdcException.Kind.CONFIGURATION, "declared column gone");
            }

            @Override
            public org.apache.flink.api.common.typeinfo.TypeInformation<ChangeEvent> producedType() {
                return ChangeEventDeserializer.events().producedType();
            }
        };
        ChangeEventDeserializer<ChangeEvent> gate = SchemaChangeGate.wrap(refusing, SchemaChangePolicy.EMIT, metrics);
        assertThatThrownBy(() -> gate.deserialize(schemaChange(List.of(ShapeChange.columnRemoved(AMOUNT))),
                new Collected())).hasMessage("declared column gone");
        assertThat(metrics.count("schemaChangesRejected")).isEqualTo(1);
    }

    @Test
    void theOptionReadsAsItsValues() {
        assertThat(List.of(SchemaChangePolicy.values()).toString()).isEqualTo("[emit, fail-on-unknown, additive-only, fail]");
    }
}
