package io.rustcdc.flink.source.json;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionMarker;
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

    static void write(JsonBuffer out, TransactionMarker m) {
        out.ascii('{').name("op").string(m.kind() == TransactionMarker.Kind.BEGIN ? "begin" : "end").comma();
        JsonRenderer.writeSource(out, m.source(), null);
        out.comma().name("transaction").ascii('{').name("id").string(m.id());
        if (m.kind() == TransactionMarker.Kind.END) {
            out.comma().name("event_count").number(m.eventCount());
            out.comma().name("data_collections").ascii('[');
            List<Map.Entry<TableId, Long>> tables = new ArrayList<>(m.eventsPerTable().entrySet());
            tables.sort(Map.Entry.comparingByKey(TABLE_ORDER));
            for (int i = 0; i < tables.size(); i++) {
                Map.Entry<TableId, Long> t = tables.get(i);
                if (i > 0) {
                    out.comma();
                }
                out.ascii('{').name("db").string(t.getKey().database());
                if (t.getKey().schema() != null) {
                    out.comma().name("schema").string(t.getKey().schema());
                }
                out.comma().name("table").string(t.getKey().table());
                out.comma().name("event_count").number(t.getValue());
                out.ascii('}');
            }
            out.ascii(']');
        }
        out.ascii('}').ascii('}');
    }
}
