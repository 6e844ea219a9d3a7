package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.model.TableId;
import java.util.Objects;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * The reader that holds the stream could not read a chunk of {@code table}, which it snapshots while it
 * streams, because the row filter {@code rowFilter} of a control request failed on the chunk's rows
 * ({@code serverMessage}, the database's words). The enumerator ends the table's snapshot as failed.
 */
@Internal
public final class SnapshotFailedEvent implements SourceEvent {
    private static final long serialVersionUID = 1L;

    private final TableId table;
    private final String rowFilter;
    private final String serverMessage;

    public SnapshotFailedEvent(TableId table, String rowFilter, String serverMessage) {
        this.table = Objects.requireNonNull(table, "table");
        this.rowFilter = Objects.requireNonNull(rowFilter, "rowFilter");
        this.serverMessage = Objects.requireNonNull(serverMessage, "serverMessage");
    }

    public TableId table() {
        return table;
    }

    public String rowFilter() {
        return rowFilter;
    }

    public String serverMessage() {
        return serverMessage;
    }

    @Override
    public String toString() {
        return "SnapshotFailed{" + table + "}";
    }
}
