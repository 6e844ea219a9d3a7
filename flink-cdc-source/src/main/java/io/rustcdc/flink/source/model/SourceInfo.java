package io.rustcdc.flink.source.model;

import java.io.Serializable;
import java.time.Instant;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Where an event came from: the connector, its position in the change log, the commit time of
 * its transaction, and whether a snapshot read it. Values render with mapping version {@link
 * #TYPE_MAPPING}. Immutable.
 */
@PublicEvolving
public final class SourceInfo implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The type-mapping version every value of this project renders with. */
    public static final String TYPE_MAPPING = "v2";

    private final String connector;
    @Nullable private final SourcePosition position;
    @Nullable private final Instant commitTime;
    private final boolean snapshot;

    private SourceInfo(String connector, @Nullable SourcePosition position, @Nullable Instant commitTime, boolean snapshot) {
        this.connector = Objects.requireNonNull(connector, "connector");
        this.position = position;
        this.commitTime = commitTime;
        this.snapshot = snapshot;
    }

    /** An event read from the change log. */
    public static SourceInfo stream(String connector, SourcePosition position, @Nullable Instant commitTime) {
        return new SourceInfo(connector, Objects.requireNonNull(position, "position"), commitTime, false);
    }

    /** A row read by a snapshot, with the log position the snapshot reflects where known. */
    public static SourceInfo snapshot(String connector, @Nullable SourcePosition position) {
        return new SourceInfo(connector, position, null, true);
    }

    /** The connector's identity, e.g. {@code postgres}, {@code mysql}, {@code mariadb}. */
    public String connector() {
        return connector;
    }

    /** The change-log position of the event, or null where none applies. */
    @Nullable
    public SourcePosition position() {
        return position;
    }

    /** The commit time of the event's transaction, or null (snapshot rows, unknown). */
    @Nullable
    public Instant commitTime() {
        return commitTime;
    }

    public boolean snapshot() {
        return snapshot;
    }

    public String typeMapping() {
        return TYPE_MAPPING;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SourceInfo)) {
            return false;
        }
        SourceInfo s = (SourceInfo) o;
        return connector.equals(s.connector) && Objects.equals(position, s.position)
                && Objects.equals(commitTime, s.commitTime) && snapshot == s.snapshot;
    }

    @Override
    public int hashCode() {
        return Objects.hash(connector, position, commitTime, snapshot);
    }

    @Override
    public String toString() {
        return connector + (snapshot ? " snapshot" : "") + " @" + position + (commitTime == null ? "" : " " + commitTime);
    }
}
