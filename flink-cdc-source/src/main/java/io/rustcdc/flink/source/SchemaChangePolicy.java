package io.rustcdc.flink.source;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What a {@link CdcSource} does when a captured table's shape changes ({@code schema-changes}),
 * judged on each schema change event's classified changes ({@link
 * io.rustcdc.flink.source.model.ShapeChange}). The same on every connector. A refused change fails
 * the job with the table, the class, the columns and their types before and after; the job's last
 * checkpoint is still before the change, so restoring it with another setting resumes there.
 *
 * <p>A statement the source classified as changing nothing of the shape ({@link
 * io.rustcdc.flink.source.model.ShapeChange.Kind#UNCHANGED}: an index, a default, a column redefined
 * as it was) is accepted by every policy. An event with no classes at all is one its connector did
 * not classify: it counts as unknown.
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
    /** Fail on any change of a captured table's shape (a statement classified as changing nothing passes). */
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
