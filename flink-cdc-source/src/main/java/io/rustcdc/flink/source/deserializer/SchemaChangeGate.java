package io.rustcdc.flink.source.deserializer;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.SchemaChangePolicy;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TransactionMarker;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.Collector;

/**
 * Applies the {@code schema-changes} policy to each schema change event before the job's
 * deserializer sees it, and counts them on the reader's metric group: {@code schemaChanges} (events),
 * one counter per class ({@code schemaChangesColumnAdded}, ..., {@code schemaChangesUnchanged} for
 * statements classified as changing nothing, {@code schemaChangesUnknown}, which also counts events
 * a connector did not classify) and {@code schemaChangesRejected} (events the policy or the
 * deserializer refused). The policy reads the classification: an event with no change at all is
 * unclassified (as unknown); one classified {@link ShapeChange.Kind#UNCHANGED} changed no shape, and
 * every policy accepts it. Other events pass untouched. Called on the reader's task thread; not
 * thread-safe.
 */
@Internal
public final class SchemaChangeGate<T> implements ChangeEventDeserializer<T> {
    private static final long serialVersionUID = 1L;

    private final ChangeEventDeserializer<T> next;
    private final SchemaChangePolicy policy;
    private final transient Counter events;
    private final transient Counter rejected;
    private final transient Map<ShapeChange.Kind, Counter> byKind;

    private SchemaChangeGate(ChangeEventDeserializer<T> next, SchemaChangePolicy policy, MetricGroup group) {
        this.next = next;
        this.policy = policy;
        this.events = group.counter("schemaChanges");
        this.rejected = group.counter("schemaChangesRejected");
        this.byKind = new EnumMap<>(ShapeChange.Kind.class);
        for (ShapeChange.Kind kind : ShapeChange.Kind.values()) {
            byKind.put(kind, group.counter(metricName(kind)));
        }
    }

    /** {@code next} behind the policy, with the counters registered on {@code group}. */
    public static <T> ChangeEventDeserializer<T> wrap(ChangeEventDeserializer<T> next, SchemaChangePolicy policy,
            MetricGroup group) {
        return new SchemaChangeGate<>(next, policy, group);
    }

    /** {@code schemaChangesColumnAdded} for COLUMN_ADDED, ... */
    static String metricName(ShapeChange.Kind kind) {
        StringBuilder name = new StringBuilder("schemaChanges");
        for (String word : kind.name().toLowerCase(Locale.ROOT).split("_")) {
            name.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
        }
        return name.toString();
    }

    @Override
    public void transactionMarker(TransactionMarker marker, Collector<T> out) throws Exception {
        next.transactionMarker(marker, out);
    }

    @Override
    public void deserialize(ChangeEvent event, Collector<T> out) throws Exception {
        if (event.op() != Op.SCHEMA_CHANGE) {
            next.deserialize(event, out);
            return;
        }
        events.inc();
        List<ShapeChange> changes = event.shapeChanges();
        if (changes.isEmpty()) {
            byKind.get(ShapeChange.Kind.UNKNOWN).inc();
        }
        for (ShapeChange c : changes) {
            byKind.get(c.kind()).inc();
        }
        String refusal = refusal(policy, changes);
        if (refusal != null) {
            rejected.inc();
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Table " + event.table().qualifiedName()
                    + " changed at the source at " + event.source().position() + ": " + refusal + ", which '"
                    + CdcSourceOptions.SCHEMA_CHANGES.key() + "' = '" + policy + "' refuses. Adapt what reads the "
                    + "table, then restore the job from its last checkpoint or savepoint (it resumes before this "
                    + "change) with '" + CdcSourceOptions.SCHEMA_CHANGES.key() + "' set to a policy that accepts it "
                    + "(" + accepting(changes) + ").");
        }
        try {
            next.deserialize(event, out);
        } catch (Exception e) {
            rejected.inc();
            throw e;
        }
    }

    /** What {@code policy} refuses of {@code changes}, in words; null when it accepts them all. */
    static String refusal(SchemaChangePolicy policy, List<ShapeChange> changes) {
        if (policy == SchemaChangePolicy.EMIT) {
            return null;
        }
        if (changes.isEmpty()) {
            return "a change the connector does not classify (unknown)";
        }
        List<ShapeChange> refused = changes.stream().filter(c -> refuses(policy, c)).collect(Collectors.toList());
        return refused.isEmpty() ? null
                : refused.stream().map(ShapeChange::describe).collect(Collectors.joining("; "));
    }

    private static boolean refuses(SchemaChangePolicy policy, ShapeChange c) {
        if (c.kind() == ShapeChange.Kind.UNCHANGED) {
            return false; // no shape changed: nothing for any policy to refuse
        }
        switch (policy) {
            case FAIL_ON_UNKNOWN:
                return c.kind() == ShapeChange.Kind.UNKNOWN;
            case ADDITIVE_ONLY:
                return !c.additive();
            case FAIL:
                return true;
            default:
                return false;
        }
    }

    private static String accepting(List<ShapeChange> changes) {
        boolean unknown = changes.isEmpty() || changes.stream().anyMatch(c -> c.kind() == ShapeChange.Kind.UNKNOWN);
        if (unknown) {
            return "'" + SchemaChangePolicy.EMIT + "'";
        }
        return changes.stream().allMatch(ShapeChange::additive)
                ? "'" + SchemaChangePolicy.ADDITIVE_ONLY + "', '" + SchemaChangePolicy.FAIL_ON_UNKNOWN + "' or '"
                        + SchemaChangePolicy.EMIT + "'"
                : "'" + SchemaChangePolicy.FAIL_ON_UNKNOWN + "' or '" + SchemaChangePolicy.EMIT + "'";
    }

    @Override
    public TypeInformation<T> producedType() {
        return next.producedType();
    }

    @Override
    public TypeInformation<T> producedType(SimpleVersionedSerializer<? extends SourcePosition> positions) {
        return next.producedType(positions);
    }
}
