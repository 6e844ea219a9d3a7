package io.rustcdc.flink.sqlserver;

import java.io.Serializable;
import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * A snapshot chunk's mark: the log's end LSN read while the chunk's SERIALIZABLE locks were held (the
 * chunk reflects exactly the changes of its range whose commit LSN is at or below it), and the {@code
 * object_id} of the table it read, read in the same statement under those locks. A table dropped (or
 * renamed away) and another created (or renamed) under its name between two chunks has another
 * object_id; the change tables may never show it (dropping a table drops its capture instances), so the
 * framework compares it across a table's chunks ({@link SqlServerConnector#tableIdentity}). Immutable.
 */
@Internal
public final class SqlServerChunkMark implements Serializable {
    private static final long serialVersionUID = 1L;

    /** No object_id: a mark read from state written before marks kept one (SQL Server has no object 0). */
    public static final int UNKNOWN_OBJECT = 0;

    private final Lsn logEnd;
    /** The {@code object_id} of the table read; {@link #UNKNOWN_OBJECT} in a mark of state version 1. */
    private final int objectId;

    private SqlServerChunkMark(Lsn logEnd, int objectId) {
        this.logEnd = Objects.requireNonNull(logEnd, "logEnd");
        this.objectId = objectId;
    }

    /** The mark of a chunk read from the table whose {@code object_id} is {@code objectId}. */
    public static SqlServerChunkMark of(Lsn logEnd, int objectId) {
        if (objectId == UNKNOWN_OBJECT) {
            throw new IllegalArgumentException("A chunk's table has an object_id; 0 is none");
        }
        return new SqlServerChunkMark(logEnd, objectId);
    }

    /** A mark without an object_id, as state version 1 held it (the LSN alone). */
    public static SqlServerChunkMark withoutObject(Lsn logEnd) {
        return new SqlServerChunkMark(logEnd, UNKNOWN_OBJECT);
    }

    /** The log's end LSN read under the chunk's locks. */
    public Lsn logEnd() {
        return logEnd;
    }

    /** The {@code object_id} of the table the chunk read; {@link #UNKNOWN_OBJECT} when its state did not hold it. */
    public int objectId() {
        return objectId;
    }

    /** Whether the chunk reflects the change with commit LSN {@code commit}: at or below the log's end. */
    public boolean reflects(Lsn commit) {
        return commit.compareTo(logEnd) <= 0;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SqlServerChunkMark)) {
            return false;
        }
        SqlServerChunkMark m = (SqlServerChunkMark) o;
        return logEnd.equals(m.logEnd) && objectId == m.objectId;
    }

    @Override
    public int hashCode() {
        return Objects.hash(logEnd, objectId);
    }

    /** {@code 0000002D:000001A8:0003 object_id 581577110}, or the LSN alone when the object_id is not known. */
    @Override
    public String toString() {
        return objectId == UNKNOWN_OBJECT ? logEnd.toString() : logEnd + " object_id " + objectId;
    }
}
