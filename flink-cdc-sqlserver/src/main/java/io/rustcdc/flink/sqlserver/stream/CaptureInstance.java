package io.rustcdc.flink.sqlserver.stream;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.sqlserver.Lsn;
import java.io.Serializable;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * One capture instance as {@code cdc.change_tables} describes it now: its name, its source table
 * (by name, and by {@code object_id}: a table dropped and created again has another), its floor
 * ({@code start_lsn}: the lowest commit LSN its change table still holds, raised by the cleanup job)
 * and, when a newer instance of the same table exists (two instances during an ALTER), the newer one's
 * floor, from which on the newer one is read instead. Immutable.
 */
@Internal
public final class CaptureInstance implements Serializable {
    private static final long serialVersionUID = 1L;

    /** No source object_id known (SQL Server has no object 0). */
    public static final int UNKNOWN_OBJECT = 0;

    private final String name;
    private final int changeTable;
    private final TableId table;
    private final int sourceObject;
    private final Lsn floor;
    @Nullable private final Lsn supersededAt;

    private CaptureInstance(String name, int changeTable, TableId table, int sourceObject, Lsn floor,
            @Nullable Lsn supersededAt) {
        this.name = Objects.requireNonNull(name, "name");
        this.changeTable = changeTable;
        this.table = Objects.requireNonNull(table, "table");
        this.sourceObject = sourceObject;
        this.floor = Objects.requireNonNull(floor, "floor");
        this.supersededAt = supersededAt;
    }

    /**
     * @param changeTable the {@code object_id} of the instance's change table, which tells an instance
     *     from one dropped and created again under its name
     */
    public static CaptureInstance of(String name, int changeTable, TableId table, Lsn floor) {
        return new CaptureInstance(name, changeTable, table, UNKNOWN_OBJECT, floor, null);
    }

    /** This instance, read only below {@code lsn} (the floor of a newer instance of its table). */
    public CaptureInstance supersededAt(Lsn lsn) {
        return new CaptureInstance(name, changeTable, table, sourceObject, floor, lsn);
    }

    /** This instance, of the table whose {@code object_id} is {@code objectId} ({@code change_tables.source_object_id}). */
    public CaptureInstance ofSourceObject(int objectId) {
        return new CaptureInstance(name, changeTable, table, objectId, floor, supersededAt);
    }

    public String name() {
        return name;
    }

    /** Its name and change table: an instance dropped and created again under its name has another key. */
    public String key() {
        return name + "#" + changeTable;
    }

    /** The {@code object_id} of the change table. */
    public int changeTable() {
        return changeTable;
    }

    public TableId table() {
        return table;
    }

    /** The {@code object_id} of its source table; {@link #UNKNOWN_OBJECT} when not known. */
    public int sourceObject() {
        return sourceObject;
    }

    public Lsn floor() {
        return floor;
    }

    /** The commit LSN from which on a newer instance of the table is read; null while this one is the newest. */
    @Nullable
    public Lsn supersededAt() {
        return supersededAt;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof CaptureInstance)) {
            return false;
        }
        CaptureInstance c = (CaptureInstance) o;
        return name.equals(c.name) && changeTable == c.changeTable && table.equals(c.table)
                && sourceObject == c.sourceObject && floor.equals(c.floor) && Objects.equals(supersededAt, c.supersededAt);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, floor);
    }

    @Override
    public String toString() {
        return name + "(" + table + ", floor " + floor + (supersededAt == null ? "" : ", until " + supersededAt) + ")";
    }
}
