package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.model.TableId;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * The stream's reader has taken these added (or requested) tables into its state; they are captured
 * from now on. {@code reading}: the tables it snapshots now, among them those it had already.
 */
@Internal
public final class TablesAcceptedEvent implements SourceEvent {
    private static final long serialVersionUID = 1L;

    private final List<TableId> tables;
    private final List<TableId> reading;

    public TablesAcceptedEvent(List<TableId> tables) {
        this(tables, tables);
    }

    public TablesAcceptedEvent(List<TableId> tables, List<TableId> reading) {
        this.tables = List.copyOf(tables);
        this.reading = List.copyOf(reading);
    }

    public List<TableId> tables() {
        return tables;
    }

    public List<TableId> reading() {
        return reading;
    }

    @Override
    public String toString() {
        return "TablesAccepted" + tables;
    }
}
