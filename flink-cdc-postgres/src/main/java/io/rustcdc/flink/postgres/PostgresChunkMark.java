package io.rustcdc.flink.postgres;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * What a snapshot chunk reflects: the MVCC snapshot its rows were read in ({@code
 * pg_current_snapshot()}: xmin, xmax and the transactions in progress, as 64-bit xids), and the
 * WAL insert position read right after that snapshot was taken. A transaction is reflected exactly
 * when that snapshot sees it; one whose commit record starts at or after the high LSN cannot be.
 * Also the relation id of the table the chunk read, under the chunk's lock: a table dropped and created
 * again under its name between two chunks has another, which the stream may never show (pgoutput sends
 * no DROP); and the order the chunk read its key in (its key columns' types and collations, {@link PgChunkKey}), which
 * differs between two chunks when a key column's type or collation changed between them. Immutable.
 */
@Internal
public final class PostgresChunkMark implements Serializable {
    private static final long serialVersionUID = 1L;

    /** No relation id: a mark read from state written before marks kept one (PostgreSQL's InvalidOid). */
    public static final long UNKNOWN_RELATION = 0;

    private final long xmin;
    private final long xmax;
    private final long[] inProgress;
    private final Lsn highLsn;
    /** The {@code pg_class} oid of the table read; {@link #UNKNOWN_RELATION} in a mark of state version 1. */
    private final long relationId;
    /** The order the chunk read its key in ({@link PgChunkKey#keyOrder}); null in a mark of state version 1 or 2. */
    @Nullable private final String keyOrder;

    private PostgresChunkMark(long xmin, long xmax, long[] inProgress, Lsn highLsn, long relationId,
            @Nullable String keyOrder) {
        this.xmin = xmin;
        this.xmax = xmax;
        this.inProgress = inProgress.clone();
        Arrays.sort(this.inProgress);
        this.highLsn = Objects.requireNonNull(highLsn, "highLsn");
        this.relationId = relationId;
        this.keyOrder = keyOrder;
    }

    /** A mark without a relation id ({@link #UNKNOWN_RELATION}), as state version 1 held it. */
    public static PostgresChunkMark of(long xmin, long xmax, long[] inProgress, Lsn highLsn) {
        return new PostgresChunkMark(xmin, xmax, inProgress, highLsn, UNKNOWN_RELATION, null);
    }

    /** The same mark, of a chunk read from relation {@code relationId}, its key in an order the mark does not say. */
    public PostgresChunkMark ofRelation(long relationId) {
        return ofRelation(relationId, null);
    }

    /** The same mark, of a chunk read from relation {@code relationId}, its key in order {@code keyOrder}. */
    public PostgresChunkMark ofRelation(long relationId, @Nullable String keyOrder) {
        return new PostgresChunkMark(xmin, xmax, inProgress, highLsn, relationId, keyOrder);
    }

    /** Parses {@code pg_current_snapshot()} text, {@code xmin:xmax:xip,xip}. */
    public static PostgresChunkMark parse(String snapshot, Lsn highLsn) {
        String[] parts = snapshot.split(":", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("Not a pg_snapshot: " + snapshot);
        }
        long[] xip = parts[2].isEmpty()
                ? new long[0]
                : Arrays.stream(parts[2].split(",")).mapToLong(Long::parseLong).toArray();
        return new PostgresChunkMark(Long.parseLong(parts[0]), Long.parseLong(parts[1]), xip, highLsn, UNKNOWN_RELATION,
                null);
    }

    /**
     * Whether the chunk's rows already show transaction {@code xid} (the 32-bit id of a BEGIN
     * message) whose commit record starts at {@code commitLsn}.
     */
    public boolean reflects(long xid, Lsn commitLsn) {
        if (xid == PostgresPosition.NO_TRANSACTION || !highLsn.isAfter(commitLsn)) {
            return false;
        }
        long full = widen(xid);
        if (full < xmin) {
            return true;
        }
        return full < xmax && Arrays.binarySearch(inProgress, full) < 0;
    }

    /**
     * The 64-bit xid nearest {@code xmax} whose low 32 bits are {@code xid}. A transaction the stream
     * sees while a chunk's handoff is open is never 2^31 xids away from the chunk's snapshot, so the
     * nearest is the one: an xid at or above {@code xmax} (one that started after the snapshot, and is
     * therefore invisible to it) stays above it, even when its commit record precedes the high LSN.
     */
    long widen(long xid) {
        int distance = (int) ((xid & 0xFFFFFFFFL) - (xmax & 0xFFFFFFFFL));
        return xmax + distance;
    }

    public long xmin() {
        return xmin;
    }

    public long xmax() {
        return xmax;
    }

    public long[] inProgress() {
        return inProgress.clone();
    }

    public Lsn highLsn() {
        return highLsn;
    }

    /** The relation id of the table the chunk read; {@link #UNKNOWN_RELATION} when the mark's state did not hold it. */
    public long relationId() {
        return relationId;
    }

    /** The order the chunk read its key in; null when the mark's state did not hold it. */
    @Nullable
    public String keyOrder() {
        return keyOrder;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PostgresChunkMark)) {
            return false;
        }
        PostgresChunkMark m = (PostgresChunkMark) o;
        return xmin == m.xmin && xmax == m.xmax && Arrays.equals(inProgress, m.inProgress) && highLsn.equals(m.highLsn)
                && relationId == m.relationId && Objects.equals(keyOrder, m.keyOrder);
    }

    @Override
    public int hashCode() {
        return Objects.hash(xmin, xmax, Arrays.hashCode(inProgress), highLsn, relationId, keyOrder);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder().append(xmin).append(':').append(xmax).append(':');
        for (int i = 0; i < inProgress.length; i++) {
            sb.append(i == 0 ? "" : ",").append(inProgress[i]);
        }
        sb.append(" @").append(highLsn);
        if (relationId != UNKNOWN_RELATION) {
            sb.append(" relation ").append(relationId);
        }
        return (keyOrder == null ? sb : sb.append(" key ").append(keyOrder)).toString();
    }
}
