package io.rustcdc.flink.sqlserver.stream;

import io.rustcdc.flink.sqlserver.Lsn;
import io.rustcdc.flink.sqlserver.SqlServerPosition;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * Where a stream is and which LSN window it reads: one window at a time, opened at the capture job's
 * maximum LSN and kept until a round of reads completes it, so the position never passes rows of a
 * window not fully read. Not thread-safe.
 */
@Internal
public final class WindowCursor {
    private SqlServerPosition position;
    @Nullable private Lsn windowEnd;

    public WindowCursor(SqlServerPosition from) {
        this.position = Objects.requireNonNull(from, "from");
    }

    public SqlServerPosition position() {
        return position;
    }

    /** The end of the window being read; null between windows. */
    @Nullable
    public Lsn windowEnd() {
        return windowEnd;
    }

    /**
     * The window to read now: the open one, else one up to {@code maxLsn} (the capture job's maximum
     * LSN now) when that holds commits after the position; null when there is nothing new.
     */
    @Nullable
    public Lsn window(Lsn maxLsn) {
        if (windowEnd == null) {
            int c = maxLsn.compareTo(position.commitLsn());
            if (c > 0 || (c == 0 && !position.isCommitEnd())) {
                windowEnd = maxLsn;
            }
        }
        return windowEnd;
    }

    /** Moves to after {@code batch}, closing the window when the batch completed it. */
    public void advance(WindowBatch batch) {
        if (windowEnd == null) {
            throw new IllegalStateException("No window is open at " + position);
        }
        if (batch.next().compareTo(position) < 0) {
            throw new IllegalStateException("A batch may not move the stream back from " + position + " to "
                    + batch.next());
        }
        position = batch.next();
        if (batch.windowDone()) {
            windowEnd = null;
        }
    }
}
