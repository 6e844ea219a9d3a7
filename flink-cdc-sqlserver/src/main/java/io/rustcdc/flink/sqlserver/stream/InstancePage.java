package io.rustcdc.flink.sqlserver.stream;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.Internal;

/** The rows one {@link InstanceRead} returned, in change order: at most a page of them. Immutable. */
@Internal
public final class InstancePage {
    private final InstanceRead read;
    private final List<ChangeRow> rows;
    private final boolean full;

    /** @param pageSize the {@code TOP} the read asked for: a page of that many rows may have more after it */
    public InstancePage(InstanceRead read, List<ChangeRow> rows, int pageSize) {
        this.read = Objects.requireNonNull(read, "read");
        this.rows = Collections.unmodifiableList(new ArrayList<>(rows));
        if (rows.size() > pageSize) {
            throw new IllegalArgumentException(rows.size() + " rows on a page of " + pageSize + " for " + read);
        }
        this.full = rows.size() == pageSize;
    }

    public InstanceRead read() {
        return read;
    }

    public List<ChangeRow> rows() {
        return rows;
    }

    /** Whether the instance may hold more rows in the window than this page. */
    public boolean full() {
        return full;
    }
}
