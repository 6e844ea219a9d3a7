package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.model.PositionString;
import io.rustcdc.flink.source.model.PositionText;
import io.rustcdc.flink.source.model.SourcePosition;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A point in a PostgreSQL logical replication stream, exact to the event.
 *
 * <p>PostgreSQL resends a whole transaction when replication restarts at or before its commit
 * record. A position is therefore the LSN to restart from plus the number of the change messages
 * of the transaction committing there that were already taken: for the i-th change of a
 * transaction committing at {@code c}, {@code (c, i)}; after its commit, {@code (end, 0)}, the end
 * of its commit record. It also carries the transaction's id, which the snapshot handoff uses.
 * Ordered by LSN, then by events taken. Immutable.
 */
@PublicEvolving
public final class PostgresPosition implements SourcePosition, Comparable<PostgresPosition> {
    private static final long serialVersionUID = 1L;

    /** The xid of a position that is not inside a transaction. */
    public static final long NO_TRANSACTION = 0;

    private final Lsn lsn;
    private final long eventsTaken;
    private final long xid;

    private PostgresPosition(Lsn lsn, long eventsTaken, long xid) {
        this.lsn = Objects.requireNonNull(lsn, "lsn");
        if (eventsTaken < 0) {
            throw new IllegalArgumentException("eventsTaken must not be negative");
        }
        this.eventsTaken = eventsTaken;
        this.xid = xid;
    }

    /** A position between transactions: restart replication at {@code lsn}. */
    public static PostgresPosition at(Lsn lsn) {
        return new PostgresPosition(lsn, 0, NO_TRANSACTION);
    }

    /** Inside transaction {@code xid} that commits at {@code commitLsn}, after its first {@code eventsTaken} changes. */
    public static PostgresPosition inTransaction(Lsn commitLsn, long eventsTaken, long xid) {
        return new PostgresPosition(commitLsn, eventsTaken, xid);
    }

    /** Where replication restarts (and what may be confirmed to the slot). */
    public Lsn lsn() {
        return lsn;
    }

    /** Change messages of the transaction committing at {@link #lsn()} already taken; 0 between transactions. */
    public long eventsTaken() {
        return eventsTaken;
    }

    /** The transaction of the event at this position, or {@link #NO_TRANSACTION}. */
    public long xid() {
        return xid;
    }

    @Override
    public int compareTo(PostgresPosition o) {
        int c = lsn.compareTo(o.lsn);
        return c != 0 ? c : Long.compare(eventsTaken, o.eventsTaken);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PostgresPosition)) {
            return false;
        }
        PostgresPosition p = (PostgresPosition) o;
        return lsn.equals(p.lsn) && eventsTaken == p.eventsTaken && xid == p.xid;
    }

    @Override
    public int hashCode() {
        return Objects.hash(lsn, eventsTaken, xid);
    }

    /** As {@link #writeTo} writes it, {@code 0/16B3748#3}. */
    @Override
    public String toString() {
        return PositionString.of(this::writeTo);
    }

    /**
     * The LSN in PostgreSQL notation, with the events taken when inside a transaction: {@code 0/16B3748#3}. Every
     * event's source carries it.
     */
    @Override
    public void writeTo(PositionText out) {
        lsn.writeTo(out);
        if (eventsTaken != 0) {
            out.text("#").decimal(eventsTaken);
        }
    }
}
