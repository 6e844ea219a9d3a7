package io.rustcdc.flink.sqlserver.stream;

import io.rustcdc.flink.sqlserver.ChangeOperation;
import io.rustcdc.flink.sqlserver.Lsn;
import io.rustcdc.flink.sqlserver.SqlServerPosition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * What one round of reads of a window yields: the rows of all its instances merged in change order
 * up to where every instance was read, and the position after them. When an instance returned a
 * full page, rows beyond it may still be unread, so the batch stops at the lowest last-row position
 * of the full pages (never between an update's old and new row) and the window is not done; the rest
 * is read next time. Only a round without a full page completes the window, at its end. Immutable.
 */
@Internal
public final class WindowBatch {
    private final List<ChangeRow> rows;
    private final SqlServerPosition next;
    private final boolean windowDone;

    private WindowBatch(List<ChangeRow> rows, SqlServerPosition next, boolean windowDone) {
        this.rows = Collections.unmodifiableList(rows);
        this.next = next;
        this.windowDone = windowDone;
    }

    /** The batch of {@code pages}, one per read of the window ending at {@code windowEnd}. */
    public static WindowBatch of(List<InstancePage> pages, Lsn windowEnd) {
        SqlServerPosition cut = null;
        for (InstancePage page : pages) {
            if (page.full()) {
                SqlServerPosition last = lastWhole(page);
                cut = cut == null || last.compareTo(cut) < 0 ? last : cut;
            }
        }
        List<ChangeRow> rows = new ArrayList<>();
        for (InstancePage page : pages) {
            for (ChangeRow row : page.rows()) {
                if (cut == null || row.position().compareTo(cut) <= 0) {
                    rows.add(row);
                }
            }
        }
        rows.sort(Comparator.comparing(ChangeRow::position));
        return cut == null
                ? new WindowBatch(rows, SqlServerPosition.afterCommit(windowEnd), true)
                : new WindowBatch(rows, cut, false);
    }

    /** The position after a full page's last row whose change is whole: an update's old row alone is left for next time. */
    private static SqlServerPosition lastWhole(InstancePage page) {
        List<ChangeRow> rows = page.rows();
        ChangeRow last = rows.get(rows.size() - 1);
        if (last.operation() != ChangeOperation.UPDATE_BEFORE) {
            return last.position();
        }
        if (rows.size() == 1) {
            throw new IllegalStateException("A page of one row cannot hold an update (old and new row): " + page.read());
        }
        return rows.get(rows.size() - 2).position();
    }

    /** The rows to emit, in change order. */
    public List<ChangeRow> rows() {
        return rows;
    }

    /** Where the stream is after these rows. */
    public SqlServerPosition next() {
        return next;
    }

    /** Whether the window is read to its end. */
    public boolean windowDone() {
        return windowDone;
    }

    @Override
    public String toString() {
        return rows.size() + " rows, next " + next + (windowDone ? " (window done)" : "");
    }

}
