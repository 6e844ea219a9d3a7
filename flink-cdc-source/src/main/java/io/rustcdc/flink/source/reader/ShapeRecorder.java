package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.history.SchemaChange;
import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.TableId;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.annotation.Internal;

/**
 * Keeps the stream split's schema history in step with the events it emits: a schema change is
 * recorded with its position as identity; a row's shape is recorded, as {@code
 * shape:<schema>.<table>:<position>}, when it differs from the table's latest entry. The id last
 * recorded per table is cached, so an unchanged table costs a string comparison per row, and a
 * replay after a restore records nothing twice. Not thread-safe: the reader's task thread owns it.
 */
@Internal
final class ShapeRecorder {
    private final SchemaHistory history;
    private final Map<TableId, String> lastIds = new HashMap<>();

    ShapeRecorder(SchemaHistory history) {
        this.history = history;
    }

    SchemaHistory history() {
        return history;
    }

    /**
     * Records what {@code event} tells of its table's shape.
     *
     * @return for a schema change, the version of its entry (the same version when it is replayed
     *     after a restore); 0 for a schema change that recorded nothing, and for every other event
     */
    long record(ChangeEvent event, Object position) {
        RowShape shape = event.shape();
        TableId table = event.table();
        if (event.op() == Op.SCHEMA_CHANGE) {
            lastIds.remove(table);
            return recordStatement(event, position);
        }
        if (shape == null || shape.id().equals(lastIds.get(table))) {
            return 0;
        }
        Optional<RowShape> latest = history.latest(table);
        if (latest.isEmpty() || !latest.get().id().equals(shape.id())) {
            history.recordDdl("shape:" + table.qualifiedName() + ":" + position,
                    SchemaChange.rowShape(table, shape, time(event)));
        }
        lastIds.put(table, shape.id());
        return 0;
    }

    /**
     * A schema change: a drop (a {@code DROP_TABLE}, or a change without a resulting shape nor a
     * type), a creation, or an alteration to the shape it carries. A creation or alteration whose
     * resulting shape the connector could not read records nothing: the next row's shape will.
     */
    private long recordStatement(ChangeEvent event, Object position) {
        SchemaChange change = SchemaChange.ofEvent(event, time(event));
        return change == null ? 0 : history.recordDdl(position.toString(), change);
    }

    private static Instant time(ChangeEvent event) {
        Instant commit = event.source().commitTime();
        return commit != null ? commit : Instant.now();
    }
}
