package io.rustcdc.flink.sqlserver.stream;

import io.rustcdc.flink.sqlserver.ChangeOperation;
import io.rustcdc.flink.sqlserver.Lsn;
import io.rustcdc.flink.sqlserver.SqlServerPosition;
import java.time.Instant;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * One row of a capture instance's change table: its commit LSN ({@code __$start_lsn}), command id,
 * sequence value ({@code __$seqval}), operation, its transaction's commit time where read, and the
 * captured columns' decoded values (in the instance's column order, {@link #ABSENT} for a value the
 * change table does not supply; the payload, which the window logic never reads). Immutable but for
 * the values array, which nobody changes.
 */
@Internal
public final class ChangeRow {
    /** A value the change table does not hold (an update's old large value, unchanged). */
    public static final Object ABSENT = new Object() {
        @Override
        public String toString() {
            return "<absent>";
        }
    };

    private final String instance;
    private final SqlServerPosition position;
    private final Object[] values;
    @Nullable private final Instant commitTime;

    public ChangeRow(String instance, Lsn commitLsn, int commandId, Lsn seqval, ChangeOperation operation,
            Object[] values) {
        this(instance, commitLsn, commandId, seqval, operation, values, null);
    }

    /** @param commitTime the commit time of its transaction; null when not read */
    public ChangeRow(String instance, Lsn commitLsn, int commandId, Lsn seqval, ChangeOperation operation,
            Object[] values, @Nullable Instant commitTime) {
        this.instance = Objects.requireNonNull(instance, "instance");
        this.position = SqlServerPosition.afterChange(commitLsn, commandId, seqval, operation);
        this.values = Objects.requireNonNull(values, "values");
        this.commitTime = commitTime;
    }

    public String instance() {
        return instance;
    }

    /** The position after this row. */
    public SqlServerPosition position() {
        return position;
    }

    public ChangeOperation operation() {
        return position.operation();
    }

    public Object[] values() {
        return values;
    }

    /** The commit time of its transaction ({@link CommitClock}); null when the stream reads none. */
    @Nullable
    public Instant commitTime() {
        return commitTime;
    }

    @Override
    public String toString() {
        return instance + "@" + position;
    }
}
