package io.rustcdc.flink.sqlserver.stream;

import io.rustcdc.flink.sqlserver.SqlServerPosition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * Which capture instances the stream has announced ({@link Announcement}): an instance whose
 * announcement position ({@link SqlServerPosition#announcing}, before its floor's changes) is at or
 * before the position the stream opened at counts as announced (its event, if it had one, came at or
 * before that position, which a restore resumes after); any other is announced once, when a batch
 * reaches its floor. So a restore from a position before an announcement announces it again, and one
 * from at or after it does not, also between two instances of one floor. Not thread-safe: one
 * stream's polling thread.
 */
@Internal
public final class InstanceAnnouncements {
    /** By {@link CaptureInstance#key()}. */
    private final Set<String> announced = new HashSet<>();

    /** Takes in the instances listed when the stream opens at {@code from}. */
    public void opened(List<CaptureInstance> listed, SqlServerPosition from) {
        for (CaptureInstance instance : listed) {
            if (position(instance).compareTo(from) <= 0) {
                announced.add(instance.key());
            }
        }
    }

    /**
     * The announcements of the instances listed now ({@code listed}, an older instance of a table
     * superseded at the newer one's floor) that a batch read from {@code start} up to {@code through}
     * reaches, in position order; each is then counted as announced. An instance listed only after the
     * stream passed its floor (not expected: the capture job sets a floor before it maps later commits)
     * is announced at {@code start}.
     */
    public List<Announcement> due(List<CaptureInstance> listed, SqlServerPosition start, SqlServerPosition through) {
        List<Announcement> due = new ArrayList<>();
        for (CaptureInstance instance : listed) {
            if (announced.contains(instance.key())) {
                continue;
            }
            SqlServerPosition at = position(instance);
            if (at.compareTo(start) < 0) {
                at = start;
            }
            if (at.compareTo(through) > 0) {
                continue; // the batch ends before its floor
            }
            due.add(new Announcement(instance, predecessor(listed, instance), at));
            announced.add(instance.key());
        }
        due.sort(Comparator.comparing(Announcement::position));
        return due;
    }

    private static SqlServerPosition position(CaptureInstance instance) {
        return SqlServerPosition.announcing(instance.floor(), instance.changeTable());
    }

    @Nullable
    private static CaptureInstance predecessor(List<CaptureInstance> listed, CaptureInstance instance) {
        for (CaptureInstance other : listed) {
            if (other.table().equals(instance.table()) && instance.floor().equals(other.supersededAt())) {
                return other;
            }
        }
        return null;
    }
}
