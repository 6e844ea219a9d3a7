package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.split.TablePlan;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Tables the reader that holds the stream snapshots while it streams, answered with {@link
 * TablesAcceptedEvent}; also the answer to {@link StreamOwnerEvent}, possibly empty, which the
 * reader waits for before it streams. {@code redelivered}: an attempt that failed may have emitted
 * chunks of these tables (for a sink that keeps a failed attempt's records, no change of their keys
 * is then left out).
 */
@Internal
public final class TablesAddedEvent implements SourceEvent {
    private static final long serialVersionUID = 1L;

    private final List<TablePlan> tables;
    private final boolean redelivered;

    public TablesAddedEvent(List<TablePlan> tables, boolean redelivered) {
        this.tables = List.copyOf(tables);
        this.redelivered = redelivered;
    }

    public List<TablePlan> tables() {
        return tables;
    }

    public boolean redelivered() {
        return redelivered;
    }

    @Override
    public String toString() {
        return "TablesAdded" + (redelivered ? "(redelivered)" : "") + tables;
    }
}
