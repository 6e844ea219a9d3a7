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

    /**
     * What kind of failure this is; decides whether a retry can help. Every kind but {@link
     * #CONNECTION} and {@link #RESTART} is final: the source marks it so that Flink fails the job once
     * instead of restarting it (see {@link FinalFailure}). A connector picks the kind by the cause, so a
     * refused login is a {@link #PREREQUISITE}, not a {@link #CONNECTION}.
     */
    public enum Kind {
        /** An option is missing, malformed or contradicts another. Fix the configuration. */
        CONFIGURATION,
        /** The database is not set up for capture (settings, grants, slot, publication, login). */
        PREREQUISITE,
        /** A value cannot be decoded or converted exactly. */
        DECODE,
        /** Changes between the held position and what the database still has are gone. */
        POSITION_LOST,
        /** The schema history cannot accept an entry. */
        SCHEMA_HISTORY,
        /** The connection to the database failed; a retry may help. */
        CONNECTION,
        /**
         * Checkpointed state cannot be read, or the tables changed so that no changelog can show them
         * exactly.
         */
        STATE,
        /**
         * The source overtook the database: it read rows before a change it had already received was
         * visible to the read (a commit is streamed a moment before new snapshots see it). Nothing was
         * lost; Flink restarts the task from its last checkpoint, which reads them again. Not retried in
         * place, as a connection failure is.
         */
        RESTART
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

    /**
     * Whether a restart cannot cure this failure: the same configuration, database and state fail
     * the same way again. Only {@link Kind#CONNECTION} and {@link Kind#RESTART} may be transient.
     */
    public boolean isFinal() {
        return kind != Kind.CONNECTION && kind != Kind.RESTART;
    }

    @Override
    public String toString() {
        return "CdcException[" + kind + "]: " + getMessage();
    }
}
