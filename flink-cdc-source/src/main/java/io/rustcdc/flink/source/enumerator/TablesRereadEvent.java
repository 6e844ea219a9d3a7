package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.split.TablePlan;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Captured tables the reader that holds the stream snapshots again while it streams (an on-demand
 * request), answered with {@link TablesAcceptedEvent}. Every change of such a table goes on being
 * emitted while it is read again, and its rows are delivered again, so a sink applying the
 * changelog by key ends in the table's state.
 */
@Internal
public final class TablesRereadEvent implements SourceEvent {
    private static final long serialVersionUID = 1L;

    private final List<TablePlan> tables;

    public TablesRereadEvent(List<TablePlan> tables) {
        this.tables = List.copyOf(tables);
    }

    public List<TablePlan> tables() {
        return tables;
    }

    @Override
    public String toString() {
        return "TablesReread" + tables;
    }
}
