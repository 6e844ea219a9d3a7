package io.rustcdc.flink.sqlserver.stream;

import io.rustcdc.flink.sqlserver.SqlServerPosition;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * A capture instance the stream reaches: from its floor on, the rows of its table carry its shape. The
 * stream says so by a schema change event at {@link #position()}, before the instance's first row: a
 * created table when no older instance of its table is listed ({@link #predecessor()} null), else the
 * difference between the older instance's columns and this one's. Immutable.
 */
@Internal
public final class Announcement {
    private final CaptureInstance instance;
    @Nullable private final CaptureInstance predecessor;
    private final SqlServerPosition position;

    Announcement(CaptureInstance instance, @Nullable CaptureInstance predecessor, SqlServerPosition position) {
        this.instance = Objects.requireNonNull(instance, "instance");
        this.predecessor = predecessor;
        this.position = Objects.requireNonNull(position, "position");
    }

    public CaptureInstance instance() {
        return instance;
    }

    /** The instance of the same table this one supersedes at its floor; null for a table's first. */
    @Nullable
    public CaptureInstance predecessor() {
        return predecessor;
    }

    /** Where the event goes: before every change of the instance's floor commit (or the stream's position, if later). */
    public SqlServerPosition position() {
        return position;
    }

    @Override
    public String toString() {
        return instance.name() + (predecessor == null ? " created" : " after " + predecessor.name()) + " at " + position;
    }
}
