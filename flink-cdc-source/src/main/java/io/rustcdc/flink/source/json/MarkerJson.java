package io.rustcdc.flink.source.json;

import com.fasterxml.jackson.core.JsonGenerator;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionMarker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A {@link TransactionMarker} as a native JSON document: {@code op} {@code begin} or {@code end}, the
 * {@code source} (connector, position, commit time) and the {@code transaction}: its id and, at the
 * end, {@code event_count} and {@code data_collections} (the events emitted per table, in table order).
 */
final class MarkerJson {
    private static final Comparator<TableId> TABLE_ORDER = Comparator.comparing(TableId::database)
            .thenComparing(t -> t.schema() == null ? "" : t.schema()).thenComparing(TableId::table);

    private MarkerJson() {}

    static void write(JsonGenerator g, TransactionMarker m) throws IOException {
        g.writeStartObject();
        g.writeStringField("op", m.kind() == TransactionMarker.Kind.BEGIN ? "begin" : "end");
        JsonRenderer.writeSource(g, m.source(), null);
        g.writeObjectFieldStart("transaction");
        g.writeStringField("id", m.id());
        if (m.kind() == TransactionMarker.Kind.END) {
            g.writeNumberField("event_count", m.eventCount());
            g.writeArrayFieldStart("data_collections");
            List<Map.Entry<TableId, Long>> tables = new ArrayList<>(m.eventsPerTable().entrySet());
            tables.sort(Map.Entry.comparingByKey(TABLE_ORDER));
            for (Map.Entry<TableId, Long> t : tables) {
                g.writeStartObject();
                g.writeStringField("db", t.getKey().database());
                if (t.getKey().schema() != null) {
                    g.writeStringField("schema", t.getKey().schema());
                }
                g.writeStringField("table", t.getKey().table());
                g.writeNumberField("event_count", t.getValue());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        g.writeEndObject();
        g.writeEndObject();
    }
}
