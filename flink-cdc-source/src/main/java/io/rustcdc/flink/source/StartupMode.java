package io.rustcdc.flink.source;

import java.io.Serializable;
import java.util.Locale;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Where a {@link CdcSource} starts when it has no state to restore. A restore always resumes from
 * the checkpointed position, whatever the mode.
 *
 * <ul>
 *   <li>{@link #initial()}: snapshot the tables, then stream every change after the snapshot. Needs
 *       the replication state (PostgreSQL: the slot) to exist or be creatable before the snapshot.
 *   <li>{@link #snapshot()}: snapshot the tables and finish; bounded. Touches no replication state.
 *   <li>{@link #latest()}: no snapshot; stream changes committed from now on. What the replication
 *       state already retained is skipped (PostgreSQL: the slot moves on once the first checkpoint
 *       is confirmed).
 *   <li>{@link #committed()}: no snapshot; stream from the position the database holds for this
 *       source (PostgreSQL: the slot's {@code confirmed_flush_lsn}), e.g. for a job that replaces an
 *       earlier one without its state.
 * </ul>
 */
@PublicEvolving
public final class StartupMode implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The kinds of start. */
    public enum Kind {
        INITIAL,
        SNAPSHOT,
        LATEST,
        COMMITTED,
        /** The stream from a position given in the connector's notation; no snapshot. */
        POSITION
    }

    private static final StartupMode INITIAL = new StartupMode(Kind.INITIAL);
    private static final StartupMode SNAPSHOT = new StartupMode(Kind.SNAPSHOT);
    private static final StartupMode LATEST = new StartupMode(Kind.LATEST);
    private static final StartupMode COMMITTED = new StartupMode(Kind.COMMITTED);

    private final Kind kind;
    @Nullable private final String position;

    private StartupMode(Kind kind) {
        this(kind, null);
    }

    private StartupMode(Kind kind, @Nullable String position) {
        this.kind = kind;
        this.position = position;
    }

    public static StartupMode initial() {
        return INITIAL;
    }

    public static StartupMode snapshot() {
        return SNAPSHOT;
    }

    public static StartupMode latest() {
        return LATEST;
    }

    public static StartupMode committed() {
        return COMMITTED;
    }

    /**
     * The stream from {@code position}, in the connector's notation (MySQL/MariaDB: {@code
     * binlog-file:offset}, as events print it), without a snapshot. The position must still be on
     * the server: a purged one fails with {@code POSITION_LOST}.
     */
    public static StartupMode position(String position) {
        if (position == null || position.isBlank()) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "A start position is required for startup mode "
                    + "'specific-offset' ('" + CdcSourceOptions.STARTUP_POSITION.key() + "')");
        }
        return new StartupMode(Kind.POSITION, position.trim());
    }

    /** The given start position of {@link Kind#POSITION}, null for the other kinds. */
    @Nullable
    public String position() {
        return position;
    }

    /** The mode named as in the option {@code scan.startup.mode}: initial, snapshot, latest-offset, committed-offset. */
    public static StartupMode parse(String name) {
        return parse(name, null);
    }

    /**
     * The mode named as in {@code scan.startup.mode}, with {@code scan.startup.specific-offset}
     * ({@code position}) for {@code specific-offset} and only for it.
     */
    public static StartupMode parse(String name, @Nullable String position) {
        String mode = name.trim().toLowerCase(Locale.ROOT);
        if (mode.equals("specific-offset")) {
            return position(position);
        }
        if (position != null) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "'" + CdcSourceOptions.STARTUP_POSITION.key()
                    + "' is set, but 'scan.startup.mode' is '" + name + "': use 'specific-offset' to start there");
        }
        switch (mode) {
            case "initial":
                return INITIAL;
            case "snapshot":
                return SNAPSHOT;
            case "latest-offset":
            case "latest":
                return LATEST;
            case "committed-offset":
            case "committed":
                return COMMITTED;
            default:
                throw new CdcException(CdcException.Kind.CONFIGURATION, "Unknown startup mode '" + name
                        + "'; use one of: initial, snapshot, latest-offset, committed-offset, specific-offset");
        }
    }

    public Kind kind() {
        return kind;
    }

    /** Whether this mode reads the tables before (or instead of) the stream. */
    public boolean snapshots() {
        return kind == Kind.INITIAL || kind == Kind.SNAPSHOT;
    }

    /** Whether this mode streams changes (is unbounded). */
    public boolean streams() {
        return kind != Kind.SNAPSHOT;
    }

    private Object readResolve() {
        switch (kind) {
            case POSITION:
                return this;
            case SNAPSHOT:
                return SNAPSHOT;
            case LATEST:
                return LATEST;
            case COMMITTED:
                return COMMITTED;
            default:
                return INITIAL;
        }
    }

    @Override
    public String toString() {
        return kind == Kind.POSITION ? "specific-offset " + position : kind.name().toLowerCase(Locale.ROOT);
    }
}
