package io.rustcdc.flink.sqlserver.stream;

import io.rustcdc.flink.sqlserver.Lsn;
import io.rustcdc.flink.sqlserver.SqlServerPosition;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * The reads of one LSN window: every capture instance from max(window start, its own floor) to the
 * window's end; an instance whose floor is past the window's end, or which a newer instance of its
 * table supersedes before the window's start, is not read in it. Fails on purged changes ({@link
 * CaptureFloors}). Stateless.
 */
@Internal
public final class WindowPlanner {
    private WindowPlanner() {}

    /**
     * @param start where the stream is: rows at or before it are not read again
     * @param end the window's last commit LSN ({@code sys.fn_cdc_get_max_lsn()} when it was opened)
     */
    public static List<InstanceRead> plan(SqlServerPosition start, Lsn end, List<CaptureInstance> instances,
            CaptureFloors floors) {
        floors.requireStillListed(instances, start);
        List<InstanceRead> reads = new ArrayList<>();
        for (CaptureInstance instance : instances) {
            floors.see(instance);
            floors.requireUnpurged(instance, instance.floor(), start);
            Lsn from = max(start.commitLsn(), instance.floor());
            if (from.compareTo(end) > 0) {
                continue; // its floor is past this window: nothing of it to read yet
            }
            Lsn below = instance.supersededAt();
            if (below != null && below.compareTo(from) <= 0) {
                continue; // a newer instance of its table holds every change from here on
            }
            reads.add(new InstanceRead(instance, start, from, end));
        }
        return reads;
    }

    private static Lsn max(Lsn a, Lsn b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
