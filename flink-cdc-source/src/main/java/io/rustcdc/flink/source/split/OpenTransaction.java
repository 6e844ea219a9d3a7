package io.rustcdc.flink.source.split;

import io.rustcdc.flink.source.model.TableId;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * The transaction whose begin marker the stream emitted and whose end it has not reached yet, at the
 * split's position: its id, the connector and commit time its end marker will carry, and the events
 * of it emitted so far, by table. Kept in the stream split, so that a restore inside a transaction
 * neither begins it again nor loses its count. Immutable.
 */
@Internal
public final class OpenTransaction {
    private final String id;
    private final String connector;
    @Nullable private final Instant commitTime;
    private final Map<TableId, Long> eventsPerTable;

    public OpenTransaction(String id, String connector, @Nullable Instant commitTime, Map<TableId, Long> eventsPerTable) {
        this.id = Objects.requireNonNull(id, "id");
        this.connector = Objects.requireNonNull(connector, "connector");
        this.commitTime = commitTime;
        this.eventsPerTable = Map.copyOf(eventsPerTable);
    }

    public String id() {
        return id;
    }

    public String connector() {
        return connector;
    }

    @Nullable
    public Instant commitTime() {
        return commitTime;
    }

    public Map<TableId, Long> eventsPerTable() {
        return eventsPerTable;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof OpenTransaction)) {
            return false;
        }
        OpenTransaction t = (OpenTransaction) o;
        return id.equals(t.id) && connector.equals(t.connector) && Objects.equals(commitTime, t.commitTime)
                && eventsPerTable.equals(t.eventsPerTable);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, connector, commitTime, eventsPerTable);
    }

    @Override
    public String toString() {
        return "open tx " + id + " " + eventsPerTable;
    }
}
