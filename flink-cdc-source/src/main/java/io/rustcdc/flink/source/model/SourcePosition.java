package io.rustcdc.flink.source.model;

import java.io.Serializable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A point in a database's change log (a PostgreSQL LSN, a MySQL GTID set or file/offset, a SQL
 * Server LSN). Each connector has its own final, immutable, comparable implementation; the
 * framework never looks inside one.
 */
@PublicEvolving
public interface SourcePosition extends Serializable {
    /** The position in the database's own notation, e.g. {@code 0/16B3748}. */
    @Override
    String toString();

    /**
     * Writes {@link #toString()} into {@code out}, the same characters: the JSON renderers call it for
     * every event. Connectors may write the pieces of their text instead of building a String, and make
     * {@code toString()} of the same pieces with {@link PositionString#of}, so the layout is written once.
     */
    default void writeTo(PositionText out) {
        out.text(toString());
    }
}
