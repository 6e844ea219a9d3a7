package io.rustcdc.flink.source.model;

import java.io.Serializable;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The transaction an event belongs to: its id in the source's notation, the event's index within
 * it (from 1) and the transaction's event count, each -1 where the source does not tell.
 */
@PublicEvolving
public final class TransactionInfo implements Serializable {
    private static final long serialVersionUID = 1L;
    public static final long UNKNOWN = -1;

    private final String id;
    private final long index;
    private final long total;

    private TransactionInfo(String id, long index, long total) {
        this.id = Objects.requireNonNull(id, "id");
        this.index = index;
        this.total = total;
    }

    public static TransactionInfo of(String id, long index, long total) {
        return new TransactionInfo(id, index, total);
    }

    public String id() {
        return id;
    }

    /** The event's index in its transaction, from 1, or {@link #UNKNOWN}. */
    public long index() {
        return index;
    }

    /** The number of events in the transaction, or {@link #UNKNOWN}. */
    public long total() {
        return total;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TransactionInfo)) {
            return false;
        }
        TransactionInfo t = (TransactionInfo) o;
        return id.equals(t.id) && index == t.index && total == t.total;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, index, total);
    }

    @Override
    public String toString() {
        return "tx " + id + " [" + index + "/" + total + "]";
    }
}
