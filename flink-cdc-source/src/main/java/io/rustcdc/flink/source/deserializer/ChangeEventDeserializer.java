package io.rustcdc.flink.source.deserializer;

import io.rustcdc.flink.source.json.DebeziumJsonRenderer;
import io.rustcdc.flink.source.json.JsonRenderer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.model.TransactionMarker;
import io.rustcdc.flink.source.serde.ChangeEventTypeInfo;
import java.io.Serializable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.util.Collector;

/**
 * Turns each {@link ChangeEvent} into the records a {@link io.rustcdc.flink.source.CdcSource}
 * emits. Called on the reader's task thread; an implementation need not be thread-safe.
 *
 * <pre>{@code
 * CdcSource.builder(connector).deserializer(ChangeEventDeserializer.json())...
 * }</pre>
 */
@PublicEvolving
public interface ChangeEventDeserializer<T> extends Serializable {

    void deserialize(ChangeEvent event, Collector<T> out) throws Exception;

    /**
     * The begin or end of a source transaction, around the events of it this deserializer is given
     * (see {@link TransactionMarker}); by default nothing is emitted for it. A deserializer that wants
     * transaction boundaries in its output emits a record here: {@link #json(JsonRenderer, boolean)} and
     * {@link #jsonBytes(JsonRenderer, boolean)} do.
     */
    default void transactionMarker(TransactionMarker marker, Collector<T> out) throws Exception {}

    TypeInformation<T> producedType();

    /**
     * The type of what this emits from a source whose connector writes positions with {@code
     * positions}; {@link io.rustcdc.flink.source.CdcSource#getProducedType()} asks
     * this. By default {@link #producedType()}.
     */
    default TypeInformation<T> producedType(SimpleVersionedSerializer<? extends SourcePosition> positions) {
        return producedType();
    }

    /**
     * The events themselves, of type {@link ChangeEventTypeInfo} (exact, never Kryo): from a source,
     * with the connector's position format; alone ({@link #producedType()}), without positions.
     */
    static ChangeEventDeserializer<ChangeEvent> events() {
        return new ChangeEventDeserializer<>() {
            private static final long serialVersionUID = 1L;

            @Override
            public void deserialize(ChangeEvent event, Collector<ChangeEvent> out) {
                out.collect(event);
            }

            @Override
            public TypeInformation<ChangeEvent> producedType() {
                return ChangeEventTypeInfo.withoutPositions();
            }

            @Override
            public TypeInformation<ChangeEvent> producedType(
                    SimpleVersionedSerializer<? extends SourcePosition> positions) {
                return ChangeEventTypeInfo.of(positions);
            }
        };
    }

    /** Each event as one native JSON document (type mapping v2), with default rendering settings. */
    static ChangeEventDeserializer<String> json() {
        return json(JsonRenderer.create());
    }

    /** Each event as one native JSON document, rendered by {@code renderer}. */
    static ChangeEventDeserializer<String> json(JsonRenderer renderer) {
        return json(renderer, false);
    }

    /**
     * Each event as one native JSON document, rendered by {@code renderer}; with {@code
     * transactionMarkers}, each transaction's begin and end too, as documents whose {@code op} is
     * {@code begin} or {@code end} ({@link JsonRenderer#renderToString(TransactionMarker)}).
     */
    static ChangeEventDeserializer<String> json(JsonRenderer renderer, boolean transactionMarkers) {
        return JsonDeserializer.strings(renderer, transactionMarkers);
    }

    /**
     * Each event as one native JSON document in UTF-8, with default rendering settings: for a sink that
     * takes bytes (Kafka, files). See {@link #jsonBytes(JsonRenderer, boolean)}.
     */
    static ChangeEventDeserializer<byte[]> jsonBytes() {
        return jsonBytes(JsonRenderer.create());
    }

    /** Each event as one native JSON document in UTF-8, rendered by {@code renderer}. */
    static ChangeEventDeserializer<byte[]> jsonBytes(JsonRenderer renderer) {
        return jsonBytes(renderer, false);
    }

    /**
     * Each event as one native JSON document in UTF-8, exactly the bytes of {@link
     * JsonRenderer#render(ChangeEvent)}, rendered by {@code renderer}; with {@code transactionMarkers}, each
     * transaction's begin and end too ({@link JsonRenderer#render(TransactionMarker)}). The same documents as
     * {@link #json(JsonRenderer, boolean)}'s, but for an unpaired surrogate, which the bytes escape as
     * {@code \uD800}. Of type {@code byte[]}, which Flink copies whole between tasks rather than character by
     * character as a String.
     */
    static ChangeEventDeserializer<byte[]> jsonBytes(JsonRenderer renderer, boolean transactionMarkers) {
        return JsonDeserializer.bytes(renderer, transactionMarkers);
    }

    /**
     * Each row event in the envelope of Debezium's JSON converter without schemas, for consumers
     * that parse Debezium's changes; schema changes, which Debezium sends apart, are not emitted.
     * See {@link DebeziumJsonRenderer} for how it differs from Debezium's own values.
     */
    static ChangeEventDeserializer<String> debeziumJson() {
        DebeziumJsonRenderer renderer = DebeziumJsonRenderer.create();
        return new ChangeEventDeserializer<>() {
            private static final long serialVersionUID = 1L;

            @Override
            public void deserialize(ChangeEvent event, Collector<String> out) {
                String json = renderer.render(event);
                if (json != null) {
                    out.collect(json);
                }
            }

            @Override
            public TypeInformation<String> producedType() {
                return Types.STRING;
            }
        };
    }
}
