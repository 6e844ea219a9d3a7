package io.rustcdc.flink.source.model;

import java.io.Serializable;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The begin or the end of a source transaction in the stream, around the events of it the source
 * emitted: {@link Kind#BEGIN} right before its first emitted event, {@link Kind#END} right after its
 * commit, with how many events of each table were emitted. A transaction none of whose events was
 * emitted has no markers. Passed to {@link
 * io.rustcdc.flink.source.deserializer.ChangeEventDeserializer#transactionMarker}.
 */
@PublicEvolving
public final class TransactionMarker implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Which end of the transaction. */
    public enum Kind {
        BEGIN,
        END
    }

    private final Kind kind;
    private final String id;
    private final SourceInfo source;
    private final Map<TableId, Long> eventsPerTable;

    private TransactionMarker(Kind kind, String id, SourceInfo source, Map<TableId, Long> eventsPerTable) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.id = Objects.requireNonNull(id, "id");
        this.source = Objects.requireNonNull(source, "source");
        this.eventsPerTable = Map.copyOf(eventsPerTable);
    }

    /** The begin of transaction {@code id}, whose first emitted event came from {@code source}. */
    public static TransactionMarker begin(String id, SourceInfo source) {
        return new TransactionMarker(Kind.BEGIN, id, source, Map.of());
    }

    /**
     * The end of transaction {@code id}: {@code source}'s position is the one right after the whole
     * transaction; {@code eventsPerTable} counts the events of it the source emitted, by table.
     */
    public static TransactionMarker end(String id, SourceInfo source, Map<TableId, Long> eventsPerTable) {
        return new TransactionMarker(Kind.END, id, source, eventsPerTable);
    }

    public Kind kind() {
        return kind;
    }

    /** The transaction's id, as {@link TransactionInfo#id()} of its events gives it. */
    public String id() {
        return id;
    }

    /** The connector, the position (see {@link #begin} and {@link #end}) and the commit time where known. */
    public SourceInfo source() {
        return source;
    }

    /** At the end: the events emitted of each table (a logical message counts under its own table id); empty at the begin. */
    public Map<TableId, Long> eventsPerTable() {
        return eventsPerTable;
    }

    /** At the end: the events emitted in all; 0 at the begin. */
    public long eventCount() {
        return eventsPerTable.values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TransactionMarker)) {
            return false;
        }
        TransactionMarker m = (TransactionMarker) o;
        return kind == m.kind && id.equals(m.id) && source.equals(m.source) && eventsPerTable.equals(m.eventsPerTable);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, id, source, eventsPerTable);
    }

    @Override
    public String toString() {
        return kind + " tx " + id + (kind == Kind.END ? " " + eventsPerTable : "") + " @ " + source.position();
    }
}
