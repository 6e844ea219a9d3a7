package io.rustcdc.flink.sqlserver.stream;

import io.rustcdc.flink.sqlserver.Lsn;
import io.rustcdc.flink.sqlserver.SqlServerPosition;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * One query of a window: the rows of {@code instance} after {@code after} whose commit LSN is in
 * [{@code from}, {@code to}] and, for an instance a newer one supersedes, below {@code below}; at most
 * a page of them, in change order. {@code from} is the instance's floor or the window's start, so the
 * change function is never asked for LSNs below the floor.
 */
@Internal
public final class InstanceRead {
    private final CaptureInstance instance;
    private final SqlServerPosition after;
    private final Lsn from;
    private final Lsn to;

    InstanceRead(CaptureInstance instance, SqlServerPosition after, Lsn from, Lsn to) {
        this.instance = Objects.requireNonNull(instance, "instance");
        this.after = Objects.requireNonNull(after, "after");
        this.from = Objects.requireNonNull(from, "from");
        this.to = Objects.requireNonNull(to, "to");
    }

    public CaptureInstance instance() {
        return instance;
    }

    /** Rows at or before this position are not read again. */
    public SqlServerPosition after() {
        return after;
    }

    /** The lowest commit LSN asked for (inclusive): {@code from_lsn} of the change function. */
    public Lsn from() {
        return from;
    }

    /** The highest commit LSN asked for (inclusive): {@code to_lsn} of the change function. */
    public Lsn to() {
        return to;
    }

    /** The commit LSN rows must be below (exclusive), for an instance a newer one supersedes; else null. */
    @Nullable
    public Lsn below() {
        return instance.supersededAt();
    }

    @Override
    public String toString() {
        return instance.name() + "[" + from + ".." + to + (below() == null ? "" : ", below " + below()) + "] after "
                + after;
    }
}
