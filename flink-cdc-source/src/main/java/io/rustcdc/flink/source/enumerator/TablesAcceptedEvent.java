package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.model.TableId;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/** The stream's reader has taken these added tables into its state; they are captured from now on. */
@Internal
public final class TablesAcceptedEvent implements SourceEvent {
    private static final long serialVersionUID = 1L;

    private final List<TableId> tables;

    public TablesAcceptedEvent(List<TableId> tables) {
        this.tables = List.copyOf(tables);
    }

    public List<TableId> tables() {
        return tables;
    }

    @Override
    public String toString() {
        return "TablesAccepted" + tables;
    }
}
