package io.rustcdc.flink.source;

import io.rustcdc.flink.source.spi.RowFilterFailure;
import org.apache.flink.annotation.Internal;

/**
 * What a {@link RowFilterFailure} (a row filter that failed on some rows of a chunk) means, by where
 * the filter came from: a configured one fails the job without a restart (the same rows would fail the
 * restored snapshot again, which keeps its filter), a control request's ends that table's snapshot as
 * failed while the stream goes on (see docs/operations.md, "Row filters"). Stateless.
 */
@Internal
public final class RowFilterFailures {
    private RowFilterFailures() {}

    /** Whether the failed filter is the one the configuration gives the table (a request may give its own). */
    public static boolean configured(RowFilterFailure failure, SourceSettings settings) {
        return failure.rowFilter().equals(settings.rowFilter(failure.table()));
    }

    /** The final failure of a configured filter, naming the option and the remedy. */
    public static CdcException ofConfigured(RowFilterFailure failure, SourceSettings settings) {
        return new CdcException(CdcException.Kind.CONFIGURATION, "The row filter " + settings.rowFilterOrigin(
                failure.table()) + " of table " + failure.table() + ", [" + failure.rowFilter() + "], failed on rows "
                + "of a chunk of the table's snapshot: " + sentence(failure.serverMessage()) + " The job fails without a "
                + "restart: the same rows would fail the snapshot again. Correct the condition so that it evaluates "
                + "on every row (guard a division with NULLIF, a cast with a CASE), or the rows it fails on. A "
                + "snapshot under way keeps the condition it started with across a restore, so with the option "
                + "corrected start the job without state, or restore a checkpoint or savepoint taken before this "
                + "table's snapshot started; with the rows corrected, restore the latest checkpoint", failure);
    }

    /**
     * The final failure of a requested filter on a chunk of the first snapshot (a table taken in by a
     * request before the stream started), which cannot be ended on its own there.
     */
    public static CdcException ofRequestedInFirstSnapshot(RowFilterFailure failure) {
        return new CdcException(CdcException.Kind.CONFIGURATION, "The row filter of a control request for table "
                + failure.table() + ", [" + failure.rowFilter() + "], failed on rows of a chunk of the first "
                + "snapshot: " + sentence(failure.serverMessage()) + " The job fails without a restart: a table requested "
                + "before the first snapshot is done is read by that snapshot, which cannot end one table's read as "
                + "failed, and the same rows would fail it again. Restore a checkpoint or savepoint taken before the "
                + "request, or start the job without state; then request the table with a condition that evaluates "
                + "on every row (guard a division with NULLIF, a cast with a CASE)", failure);
    }

    /** The error logged when a requested filter's failure ends the table's snapshot while the stream goes on. */
    public static String requested(String table, String rowFilter, String serverMessage, String controlPath) {
        return "The row filter of a control request for table " + table + ", [" + rowFilter + "], failed on rows "
                + "of a chunk: " + sentence(serverMessage) + " The table's snapshot is ended as failed (the state readout "
                + "shows 'failed' and the database's message, also after a restore); the stream goes on. A table the "
                + "source captured before stays captured and its changes go on being emitted; one the request took in is not "
                + "captured, as when a snapshot is stopped. The rows its chunks delivered before stay delivered. "
                + "Request it again with a condition that evaluates on every row (guard a division with NULLIF, a "
                + "cast with a CASE): SnapshotControl " + controlPath + " request --filter " + table + " '<condition>'"
                + " (without --filter: its configured filter, if any)";
    }

    /** {@code message} ending in one full stop. */
    private static String sentence(String message) {
        String m = message.strip();
        return m.endsWith(".") ? m : m + ".";
    }
}
