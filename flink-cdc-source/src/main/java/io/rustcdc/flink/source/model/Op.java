package io.rustcdc.flink.source.model;

import org.apache.flink.annotation.PublicEvolving;

/** What a {@link ChangeEvent} reports. */
@PublicEvolving
public enum Op {
    /** A row read by a snapshot: {@code after} only. */
    READ("read"),
    INSERT("insert"),
    /** {@code before} (when the source supplies it) and {@code after}. */
    UPDATE("update"),
    /** {@code before} only: the whole old row, or its key when the source supplies only that. */
    DELETE("delete"),
    /** The table was emptied; no rows. */
    TRUNCATE("truncate"),
    /** An application message written into the log (PostgreSQL {@code pg_logical_emit_message}). */
    MESSAGE("message"),
    /** A captured DDL statement changed the table. */
    SCHEMA_CHANGE("schema_change");

    private final String wireName;

    Op(String wireName) {
        this.wireName = wireName;
    }

    /** The name in the native JSON envelope. */
    public String wireName() {
        return wireName;
    }
}
