package io.rustcdc.flink.source;

import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The one exception family of the connectors. Its {@link Kind} says what went wrong; its message
 * names what (table, column, option, position) and what to do. A message never holds a secret or
 * a row value.
 */
@PublicEvolving
public class CdcException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What kind of failure this is; decides whether a retry can help. */
    public enum Kind {
        /** An option is missing, malformed or contradicts another. Fix the configuration. */
        CONFIGURATION,
        /** The database is not set up for capture (settings, grants, slot, publication). */
        PREREQUISITE,
        /** A value cannot be decoded or converted exactly. */
        DECODE,
        /** Changes between the held position and what the database still has are gone. */
        POSITION_LOST,
        /** The schema history cannot accept an entry. */
        SCHEMA_HISTORY,
        /** The connection to the database failed; a retry may help. */
        CONNECTION,
        /** Checkpointed state cannot be read. */
        STATE
    }

    private final Kind kind;

    public CdcException(Kind kind, String message) {
        super(message);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    public CdcException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    public Kind kind() {
        return kind;
    }

    @Override
    public String toString() {
        return "CdcException[" + kind + "]: " + getMessage();
    }
}
