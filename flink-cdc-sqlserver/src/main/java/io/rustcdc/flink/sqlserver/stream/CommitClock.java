package io.rustcdc.flink.sqlserver.stream;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.sqlserver.Lsn;
import io.rustcdc.flink.sqlserver.types.SqlServerTemporal;
import java.io.Serializable;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/**
 * Commit times as instants. {@code cdc.lsn_time_mapping} records a transaction's commit time
 * ({@code tran_end_time}) as a {@code datetime} in the server's local time, with no offset. A local
 * time maps to one instant only where the server's clock runs at a fixed offset: a zone with daylight
 * saving time repeats an hour of local times every autumn, and nothing in the change tables tells the
 * two apart. So the offset is the option {@code server-time-zone}, which takes only a fixed offset, and
 * the stream checks in every round that the server's clock runs at it ({@link #requireServerOffset}).
 * The value is the {@code datetime} as SQL Server prints it ({@code CONVERT(varchar(23), value, 121)}:
 * its 1/300 s ticks as milliseconds, {@code .000}, {@code .003}, {@code .007}), at that offset.
 * Immutable.
 */
@Internal
public final class CommitClock implements Serializable {
    private static final long serialVersionUID = 1L;

    private final ZoneOffset offset;

    public CommitClock(ZoneOffset offset) {
        this.offset = Objects.requireNonNull(offset, "offset");
    }

    public ZoneOffset offset() {
        return offset;
    }

    /**
     * Fails unless the server's clock runs at this offset now ({@code DATEPART(TZOFFSET,
     * SYSDATETIMEOFFSET())}, in minutes).
     *
     * @param option the option's key, for the message
     * @throws CdcException of kind CONFIGURATION naming the option, both offsets and the remedy
     */
    public void requireServerOffset(int serverMinutes, String option) {
        if (serverMinutes * 60 != offset.getTotalSeconds()) {
            ZoneOffset server = ZoneOffset.ofTotalSeconds(serverMinutes * 60);
            throw new CdcException(CdcException.Kind.CONFIGURATION, "SQL Server's clock runs at UTC" + text(server)
                    + " now, but '" + option + "' says UTC" + text(offset) + ": commit times "
                    + "(cdc.lsn_time_mapping, in the server's local time) would be wrong by the difference. Set '"
                    + option + "' to the server's offset if its clock has no daylight saving time, or leave it unset "
                    + "(events then carry no commit time).");
        }
    }

    /**
     * The instant of {@code tran_end_time} as {@code CONVERT(varchar(23), tran_end_time, 121)} prints it.
     *
     * @param commitLsn the commit it is the time of, for the message
     * @throws CdcException of kind STATE when there is none (no {@code cdc.lsn_time_mapping} row for the
     *     commit) or it is not a datetime
     */
    public Instant commitTime(@Nullable String text, Lsn commitLsn, String instance) {
        if (text == null) {
            throw new CdcException(CdcException.Kind.STATE, "cdc.lsn_time_mapping has no row for commit "
                    + commitLsn + " of a change in capture instance '" + instance + "', which SQL Server documents "
                    + "for every transaction with rows in a change table: its commit time is unknown. Leave "
                    + "'server-time-zone' unset to stream without commit times.");
        }
        try {
            return SqlServerTemporal.dateTime(text, 3).toInstant(offset);
        } catch (IllegalArgumentException e) {
            throw new CdcException(CdcException.Kind.STATE, "cdc.lsn_time_mapping's tran_end_time of commit "
                    + commitLsn + " is '" + text + "', not a datetime: " + e.getMessage(), e);
        }
    }

    private static String text(ZoneOffset offset) {
        return offset.getId().replace("Z", "+00:00");
    }

    @Override
    public String toString() {
        return "CommitClock{" + offset + "}";
    }
}
