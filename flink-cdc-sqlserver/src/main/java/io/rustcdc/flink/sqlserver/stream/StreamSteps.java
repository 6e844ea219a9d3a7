package io.rustcdc.flink.sqlserver.stream;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.sqlserver.ChangeOperation;
import io.rustcdc.flink.sqlserver.Lsn;
import io.rustcdc.flink.sqlserver.SqlServerPosition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * Turns each {@link WindowBatch} into what the stream delivers, in order: changes (an update's old and
 * new row as one), the {@link Announcement}s the batch reaches, and the end of each transaction.
 *
 * <p>A transaction is a commit LSN: all its rows, in every change table, share its {@code
 * __$start_lsn}, and no other transaction has it. Batches hold rows in change order, commit LSN first,
 * so a transaction's rows are contiguous across instances, and a window holds whole transactions (it
 * ends at a commit the capture job has written with everything before it). A full page may cut a batch
 * inside a transaction; the next batch starts with its remaining rows, before any other. So a
 * transaction ends where a row of a later commit follows it, or where a window is read to its end: only
 * then is its end marked ({@link Kind#TRANSACTION_END}, at the position after its commit), across
 * batches, and never inside it. Each change is numbered within its transaction, from 1 (on a stream
 * resumed inside a transaction, after the changes it had taken). Not thread-safe: one stream's polling
 * thread.
 */
@Internal
public final class StreamSteps {
    /** What a step delivers. */
    public enum Kind {
        /** A row of a change table (an insert or a delete), or an update's old and new rows. */
        CHANGE,
        /** A capture instance reached: a schema change event. */
        ANNOUNCEMENT,
        /** The end of the transaction whose changes came last. */
        TRANSACTION_END,
        /** The position moved without a change (a window read to its end after its last transaction). */
        PROGRESS
    }

    /** One step: its kind, its position (after it), and what it carries. Immutable. */
    public static final class Step {
        private final Kind kind;
        private final SqlServerPosition position;
        @Nullable private final ChangeRow before;
        @Nullable private final ChangeRow after;
        private final long index;
        @Nullable private final Announcement announcement;

        private Step(Kind kind, SqlServerPosition position, @Nullable ChangeRow before, @Nullable ChangeRow after,
                long index, @Nullable Announcement announcement) {
            this.kind = kind;
            this.position = Objects.requireNonNull(position, "position");
            this.before = before;
            this.after = after;
            this.index = index;
            this.announcement = announcement;
        }

        public Kind kind() {
            return kind;
        }

        public SqlServerPosition position() {
            return position;
        }

        /** For a change: the row it starts with (an update's old row; the row of an insert or a delete). */
        @Nullable
        public ChangeRow before() {
            return before;
        }

        /** For a change: the row it ends with (an update's new row; the same row for an insert or a delete). */
        @Nullable
        public ChangeRow after() {
            return after;
        }

        /** For a change: its number among its transaction's changes the stream reads, from 1; else 0. */
        public long index() {
            return index;
        }

        @Nullable
        public Announcement announcement() {
            return announcement;
        }

        @Override
        public String toString() {
            return kind + (before == null ? "" : " " + before.instance() + " " + before.operation())
                    + (announcement == null ? "" : " " + announcement) + " -> " + position;
        }
    }

    /** The commit whose rows came last and whose end is not marked yet; null between transactions. */
    @Nullable private Lsn open;
    /** The changes of {@link #open} so far. */
    private long changes;

    /**
     * A stream at {@code from}: after a change, the rest of that change's transaction may follow.
     *
     * @param taken the changes of {@code from}'s transaction at or before it (the rows of its commit,
     *     an update's old row not counted, that the instances the stream reads hold up to it); 0 when
     *     {@code from} is not after a change
     */
    public StreamSteps(SqlServerPosition from, long taken) {
        this.open = from.isCommitEnd() || from.isBeforeCommit() ? null : from.commitLsn();
        this.changes = open == null ? 0 : taken;
    }

    /** Whether {@code from} is inside a transaction, whose changes up to it {@link #StreamSteps} must be told. */
    public static boolean inside(SqlServerPosition from) {
        return !from.isCommitEnd() && !from.isBeforeCommit();
    }

    /**
     * The steps of {@code batch}, with {@code announcements} (in position order, each at or before the
     * batch's end) in their places.
     *
     * @throws CdcException of kind STATE when an update's old row has no new row after it
     */
    public List<Step> of(WindowBatch batch, List<Announcement> announcements) {
        List<Step> steps = new ArrayList<>();
        List<ChangeRow> rows = batch.rows();
        int a = 0;
        for (int i = 0; i < rows.size(); i++) {
            ChangeRow row = rows.get(i);
            while (a < announcements.size() && announcements.get(a).position().compareTo(row.position()) < 0) {
                announce(steps, announcements.get(a++));
            }
            Lsn commit = row.position().commitLsn();
            if (open != null && !open.equals(commit)) {
                end(steps);
            }
            ChangeRow after = row;
            if (row.operation() == ChangeOperation.UPDATE_BEFORE) {
                after = i + 1 < rows.size() ? rows.get(++i) : null;
                if (after == null || after.operation() != ChangeOperation.UPDATE_AFTER
                        || !after.position().seqval().equals(row.position().seqval())
                        || after.position().commandId() != row.position().commandId()) {
                    throw new CdcException(CdcException.Kind.STATE, "Capture instance '" + row.instance() + "' has an "
                            + "update's old row at " + row.position() + " without its new row after it");
                }
            }
            steps.add(new Step(Kind.CHANGE, after.position(), row, after, ++changes, null));
            open = commit;
        }
        while (a < announcements.size()) {
            announce(steps, announcements.get(a++));
        }
        if (batch.windowDone() && open != null) {
            end(steps);
        }
        if (steps.isEmpty() || steps.get(steps.size() - 1).position().compareTo(batch.next()) < 0) {
            steps.add(new Step(Kind.PROGRESS, batch.next(), null, null, 0, null));
        }
        return steps;
    }

    /** An announcement after the open transaction's end when it lies after it; inside it otherwise (a late one). */
    private void announce(List<Step> steps, Announcement announcement) {
        if (open != null && SqlServerPosition.afterCommit(open).compareTo(announcement.position()) <= 0) {
            end(steps);
        }
        steps.add(new Step(Kind.ANNOUNCEMENT, announcement.position(), null, null, 0, announcement));
    }

    private void end(List<Step> steps) {
        steps.add(new Step(Kind.TRANSACTION_END, SqlServerPosition.afterCommit(open), null, null, 0, null));
        open = null;
        changes = 0;
    }
}
