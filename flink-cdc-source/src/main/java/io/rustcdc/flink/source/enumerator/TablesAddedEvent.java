package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.split.TablePlan;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Tables that match the include list after a restore and were not captured before: the reader that
 * holds the stream snapshots them while it streams, and answers with {@link TablesAcceptedEvent}.
 */
@Internal
public final class TablesAddedEvent implements SourceEvent {
    private static final long serialVersionUID = 1L;

    private final List<TablePlan> tables;

    public TablesAddedEvent(List<TablePlan> tables) {
        this.tables = List.copyOf(tables);
    }

    public List<TablePlan> tables() {
        return tables;
    }

    @Override
    public String toString() {
        return "TablesAdded" + tables;
    }
}
