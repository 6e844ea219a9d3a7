package io.rustcdc.flink.source.deserializer;

import io.rustcdc.flink.source.json.JsonRenderer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TransactionMarker;
import java.io.Serializable;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.util.Collector;

/**
 * {@link ChangeEventDeserializer#json} and {@link ChangeEventDeserializer#jsonBytes}: each event, and each
 * transaction marker when asked, as one native JSON document of one renderer, as a String or as UTF-8 bytes.
 */
final class JsonDeserializer<T> implements ChangeEventDeserializer<T> {
    private static final long serialVersionUID = 1L;
    private final Render<ChangeEvent, T> events;
    private final Render<TransactionMarker, T> markers;
    private final boolean transactionMarkers;
    private final TypeInformation<T> type;

    private JsonDeserializer(Render<ChangeEvent, T> events, Render<TransactionMarker, T> markers,
            boolean transactionMarkers, TypeInformation<T> type) {
        this.events = events;
        this.markers = markers;
        this.transactionMarkers = transactionMarkers;
        this.type = type;
    }

    /** One of the renderer's methods, which travels with the job (Flink 1.20 has no SerializableFunction). */
    private interface Render<I, T> extends Serializable {
        T apply(I item);
    }

    static JsonDeserializer<String> strings(JsonRenderer renderer, boolean transactionMarkers) {
        return new JsonDeserializer<>(renderer::renderToString, renderer::renderToString, transactionMarkers,
                Types.STRING);
    }

    static JsonDeserializer<byte[]> bytes(JsonRenderer renderer, boolean transactionMarkers) {
        return new JsonDeserializer<>(renderer::render, renderer::render, transactionMarkers,
                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
    }

    @Override
    public void deserialize(ChangeEvent event, Collector<T> out) {
        out.collect(events.apply(event));
    }

    @Override
    public void transactionMarker(TransactionMarker marker, Collector<T> out) {
        if (transactionMarkers) {
            out.collect(markers.apply(marker));
        }
    }

    @Override
    public TypeInformation<T> producedType() {
        return type;
    }
}
