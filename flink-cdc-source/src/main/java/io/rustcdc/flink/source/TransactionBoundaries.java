package io.rustcdc.flink.source;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Whether a checkpoint may fall inside a source transaction ({@code scan.transaction-boundaries}).
 * Under {@link #PRESERVE} the reader emits each transaction between two checkpoints, so a sink that
 * commits with checkpoints (two-phase commit) commits whole source transactions; a transaction of
 * more than {@code scan.transaction-boundaries.max-changes} changes is the exception, emitted split
 * with a warning naming it and the bound. Snapshot rows are their own boundary.
 *
 * <pre>{@code
 * CdcSource.builder(connector).transactionBoundaries(TransactionBoundaries.PRESERVE)...
 * // SQL: WITH ('scan.transaction-boundaries' = 'preserve')
 * }</pre>
 */
@PublicEvolving
public enum TransactionBoundaries {
    /** A checkpoint may fall between any two stream records. The default. */
    SPLIT("split"),
    /** A checkpoint falls only between transactions (PostgreSQL, MySQL, MariaDB and SQL Server). */
    PRESERVE("preserve");

    private final String text;

    TransactionBoundaries(String text) {
        this.text = text;
    }

    /** The option's value, e.g. {@code preserve}; Flink parses enum options by it. */
    @Override
    public String toString() {
        return text;
    }
}
