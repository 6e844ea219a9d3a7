package io.rustcdc.flink.sqlserver.stream;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.sqlserver.Lsn;
import io.rustcdc.flink.sqlserver.SqlServerPosition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * What one stream knows of its capture instances' floors, to tell a floor that is simply later than
 * the stream (a capture instance created after the stream's position, normal) from one the cleanup
 * job raised past changes the stream had not read yet (purged changes, a final error naming the
 * instance). Both look alike to SQL Server: asking a change function for LSNs below an instance's
 * floor raises error 313 in either case.
 *
 * <p>An instance's floor is remembered when the stream first sees it; from then on a floor above
 * both that first floor and the stream's commit LSN means the cleanup deleted rows the stream had
 * not read. Not thread-safe: one stream's polling thread.
 */
@Internal
public final class CaptureFloors {
    /** By instance name and change table id (an instance dropped and created again is another one). */
    private final Map<String, Lsn> firstFloors = new HashMap<>();
    /** The instances seen, by the same key. */
    private final Map<String, CaptureInstance> seen = new HashMap<>();

    /**
     * Takes in an instance the stream sees for the first time when it opens at {@code position}.
     * An instance whose floor is above the position either was created after it (then it was created
     * after the position's commit time) or lost the changes after it to the cleanup job (then it was
     * created before that time).
     *
     * @param created the instance's {@code create_date}
     * @param positionTime the commit time of the position's commit LSN ({@code sys.fn_cdc_map_lsn_to_time});
     *     null when the server no longer maps it, when the instance counts as created after it
     * @throws CdcException of kind POSITION_LOST when the changes after the position are purged
     */
    public void opened(CaptureInstance instance, SqlServerPosition position, Instant created,
            @Nullable Instant positionTime) {
        if (instance.floor().compareTo(position.commitLsn()) > 0 && positionTime != null
                && created.isBefore(positionTime)) {
            throw purged(instance, position, instance.floor(), "it was created at " + created
                    + ", before the position's commit at " + positionTime);
        }
        see(instance);
    }

    /** Takes in an instance seen while streaming (created after the stream's position, or seen before). */
    public void see(CaptureInstance instance) {
        firstFloors.putIfAbsent(key(instance), instance.floor());
        seen.putIfAbsent(key(instance), instance);
    }

    /**
     * Fails when an instance seen before is gone from {@code now} (the instances listed now) and its
     * changes after {@code position} may have gone with it: when no other instance of its table is
     * listed (CDC disabled on the table, or the table dropped), or when the instance that replaced it
     * (listed, of its table, with a higher floor) starts above the position, so that the gone one alone
     * held the changes in between (it was dropped before the stream had read up to its successor's
     * floor, or CDC was disabled and enabled again on the table). An instance gone once the stream has
     * passed its successor's floor was replaced (an ALTER's switch), and so was a newer one dropped while
     * an older one of its table still captures (it holds every change too). An instance gone whose table's
     * name now denotes another table (every instance listed under the name has another source object_id)
     * fails as a table replaced, wherever the position is.
     *
     * @throws CdcException of kind POSITION_LOST naming the instance and its table
     */
    public void requireStillListed(List<CaptureInstance> now, SqlServerPosition position) {
        Set<String> listed = new HashSet<>();
        Map<TableId, List<CaptureInstance>> tables = new HashMap<>();
        for (CaptureInstance instance : now) {
            listed.add(key(instance));
            tables.computeIfAbsent(instance.table(), t -> new ArrayList<>()).add(instance);
        }
        for (Map.Entry<String, CaptureInstance> e : seen.entrySet()) {
            CaptureInstance gone = e.getValue();
            if (listed.contains(e.getKey())) {
                continue;
            }
            List<CaptureInstance> same = tables.get(gone.table());
            if (same != null && replaced(gone, same)) {
                throw new CdcException(CdcException.Kind.POSITION_LOST, "Table " + name(gone) + " was replaced while "
                        + "the stream was at " + position + " (dropped or renamed away, and another table created or "
                        + "renamed under its name: object_id " + gone.sourceObject() + " before, object_id "
                        + same.get(0).sourceObject() + " now): capture instance '" + gone.name() + "' went with the "
                        + "old table, so its changes after that position cannot be read, and the rows the new table "
                        + "held before CDC was enabled on it are in no change table. Start the source without state "
                        + "to snapshot the table again, or exclude the table.");
            }
            if (same == null) {
                throw new CdcException(CdcException.Kind.POSITION_LOST, "Capture instance '" + gone.name()
                        + "' (table " + name(gone) + ") is gone: its change table was dropped (CDC disabled on the "
                        + "table, or the table dropped) while the stream was at " + position + ", so its changes "
                        + "after that cannot be read. Exclude the table if it was dropped on purpose, or enable CDC on "
                        + "it again and start the source with a snapshot.");
            }
            Lsn successor = null;
            for (CaptureInstance other : same) {
                if (other.floor().compareTo(gone.floor()) > 0
                        && (successor == null || other.floor().compareTo(successor) < 0)) {
                    successor = other.floor();
                }
            }
            if (successor != null && position.commitLsn().compareTo(successor) < 0) {
                throw new CdcException(CdcException.Kind.POSITION_LOST, "Capture instance '" + gone.name()
                        + "' (table " + name(gone) + ") was dropped while the stream was at " + position + ", below "
                        + "the floor " + successor + " of the instance that replaced it: the changes between the two "
                        + "were only in the dropped change table, so they cannot be read. Start the source again "
                        + "with a snapshot; when you switch capture instances (an ALTER), drop the old one only after "
                        + "the source's position has passed the new one's floor.");
            }
        }
    }

    /**
     * At a restore, fails when a table whose rows the stream delivered before {@code from} ({@code
     * streamed}: an instance of it held changes at or below the position) has no listed instance (of
     * {@code listed}, those listed now) whose floor is at or below the position: the instance that
     * held its changes after the position was dropped since (CDC disabled, perhaps enabled again), and
     * those changes with it. A stream that ran on would have failed when it saw the instance go
     * ({@link #requireStillListed}); this tells the same from the stream's state after a restart.
     *
     * @throws CdcException of kind POSITION_LOST naming the table
     */
    public static void requireCovered(Set<TableId> streamed, List<CaptureInstance> listed, SqlServerPosition from) {
        for (TableId table : streamed) {
            boolean covered = false;
            Lsn lowest = null;
            for (CaptureInstance instance : listed) {
                if (instance.table().equals(table)) {
                    covered |= instance.floor().compareTo(from.commitLsn()) <= 0;
                    lowest = lowest == null || instance.floor().compareTo(lowest) < 0 ? instance.floor() : lowest;
                }
            }
            if (!covered) {
                throw new CdcException(CdcException.Kind.POSITION_LOST, "Table " + table.schema() + "." + table.table()
                        + ", whose changes this source streamed up to " + from + ", has " + (lowest == null
                        ? "no capture instance any more" : "no capture instance that starts at or before that "
                        + "position (the earliest starts at " + lowest + ")") + ": the instance that held its changes "
                        + "after it was dropped (CDC disabled on the table, perhaps enabled again, or the table "
                        + "dropped), and those changes with it. Exclude the table if it was dropped on purpose, or start "
                        + "the source again with a snapshot.");
            }
        }
    }

    /**
     * Fails when {@code floorNow}, the instance's floor read now, is above both the floor the stream
     * first saw and the commit LSN of {@code position}: rows the stream had not read were deleted.
     * Call it when planning a window and again after each read (the cleanup may run during one).
     *
     * @throws CdcException of kind POSITION_LOST naming the instance
     */
    public void requireUnpurged(CaptureInstance instance, Lsn floorNow, SqlServerPosition position) {
        Lsn first = firstFloors.get(key(instance));
        if (first == null) {
            throw new IllegalStateException("Capture instance " + instance.name() + " was never seen");
        }
        Lsn unreadFrom = first.compareTo(position.commitLsn()) > 0 ? first : position.commitLsn();
        if (floorNow.compareTo(unreadFrom) > 0) {
            throw purged(instance, position, floorNow, "its floor was " + first + " when the stream first saw it");
        }
    }

    /**
     * Tells SQL Server's error 313 on {@code read} apart: when the instance's floor read after it,
     * {@code floorNow}, is above the read's start, the cleanup job raised the floor past rows the
     * stream had not read (the planner never asks below a floor it has seen), a final error; else the
     * error is not about the floor and this returns, for the caller to fail with it.
     *
     * @throws CdcException of kind POSITION_LOST naming the instance
     */
    public void rangeRefused(InstanceRead read, Lsn floorNow, SqlServerPosition position) {
        if (floorNow.compareTo(read.from()) > 0) {
            throw purged(read.instance(), position, floorNow, "it was read from " + read.from()
                    + " and SQL Server refused that range (error 313)");
        }
    }

    /** Whether every instance of the table listed now captures another table than {@code gone} did (both known). */
    private static boolean replaced(CaptureInstance gone, List<CaptureInstance> now) {
        if (gone.sourceObject() == CaptureInstance.UNKNOWN_OBJECT) {
            return false;
        }
        for (CaptureInstance instance : now) {
            if (instance.sourceObject() == CaptureInstance.UNKNOWN_OBJECT
                    || instance.sourceObject() == gone.sourceObject()) {
                return false;
            }
        }
        return true;
    }

    private static String key(CaptureInstance instance) {
        return instance.key();
    }

    private static String name(CaptureInstance instance) {
        return instance.table().schema() + "." + instance.table().table();
    }

    static CdcException purged(CaptureInstance instance, SqlServerPosition position, Lsn floor, String why) {
        return new CdcException(CdcException.Kind.POSITION_LOST, "Changes of capture instance '" + instance.name()
                + "' (table " + instance.table().schema() + "." + instance.table().table() + ") after the stream's "
                + "position " + position + " were purged: its change table now starts at " + floor + " (" + why
                + "), so the cleanup job deleted rows this source had not read. Start the source again with a "
                + "snapshot, and keep the change tables longer (EXEC sys.sp_cdc_change_job @job_type = N'cleanup', "
                + "@retention = <minutes>) than the source may stay stopped or behind.");
    }
}
