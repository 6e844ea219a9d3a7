package io.rustcdc.flink.source;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What a {@link CdcSource} does when a captured table's shape changes ({@code schema-changes}),
 * judged on each schema change event's classified changes ({@link
 * io.rustcdc.flink.source.model.ShapeChange}). The same on every connector. A refused change fails
 * the job with the table, the class, the columns and their types before and after; the job's last
 * checkpoint is still before the change, so restoring it with another setting resumes there.
 *
 * <p>A connector that does not classify its schema changes yet (MySQL and MariaDB in this release)
 * emits events with no classes: they count as unknown.
 *
 * <pre>{@code
 * CdcSource.builder(connector).schemaChanges(SchemaChangePolicy.ADDITIVE_ONLY)...
 * // SQL: WITH ('schema-changes' = 'additive-only')
 * }</pre>
 */
@PublicEvolving
public enum SchemaChangePolicy {
    /** Emit every schema change event, classified, and go on. The default. */
    EMIT("emit"),
    /** Emit classified changes; fail on a change the source cannot tell apart (UNKNOWN). */
    FAIL_ON_UNKNOWN("fail-on-unknown"),
    /** Emit additive changes (a table created, a nullable column added); fail on any other. */
    ADDITIVE_ONLY("additive-only"),
    /** Fail on any schema change of a captured table. */
    FAIL("fail");

    private final String text;

    SchemaChangePolicy(String text) {
        this.text = text;
    }

    /** The option's value, e.g. {@code fail-on-unknown}; Flink parses enum options by it. */
    @Override
    public String toString() {
        return text;
    }
}
