package io.rustcdc.flink.source.reader;

import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.TransactionBoundaries;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.spi.StreamRecord;
import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the reader may let a checkpoint fall in the stream, by {@code scan.transaction-boundaries}.
 * Under {@link TransactionBoundaries#SPLIT}, anywhere. Under {@link TransactionBoundaries#PRESERVE},
 * only between transactions: a transaction is open from its first event with a {@link
 * TransactionInfo} until its {@link StreamRecord#transactionEnd} record; events without one (a
 * non-transactional message) and positions alone are their own boundary when no transaction is open.
 * A transaction of more than {@code max} changes is cut after every {@code max} of them, with one
 * warning naming it and the bound. Fed every stream record in stream order, emitted or not.
 */
@Internal
final class TransactionCut {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionCut.class);

    private final boolean preserve;
    private final int max;
    /** The transaction whose events came and whose end did not yet; null between transactions. */
    @Nullable private String open;
    /** Changes of the open transaction since it started or was last cut. */
    private long changes;
    @Nullable private String warned;

    TransactionCut(TransactionBoundaries boundaries, int max) {
        this.preserve = boundaries == TransactionBoundaries.PRESERVE;
        this.max = max;
    }

    static TransactionCut of(SourceSettings settings) {
        return new TransactionCut(settings.transactionBoundaries(), settings.transactionMaxChanges());
    }

    /**
     * Whether the reader must stop before {@code record}, which would be a change of the open
     * transaction beyond the bound: then a checkpoint may fall here, and {@code record} is the first of
     * the next emission. Warns once per transaction.
     */
    boolean overBound(StreamRecord<?> record) {
        if (!preserve || open == null || changes < max || transaction(record) == null) {
            return false;
        }
        if (!open.equals(warned)) {
            warned = open;
            LOG.warn("Transaction {} has more than {} changes ('{}'): it is emitted split, and a checkpoint may "
                    + "fall inside it after every {} of its changes. A sink that commits with checkpoints commits "
                    + "it in parts; raise '{}' above the largest transaction to keep each whole", open, max,
                    CdcSourceOptions.TRANSACTION_MAX_CHANGES.key(), max, CdcSourceOptions.TRANSACTION_MAX_CHANGES.key());
        }
        changes = 0;
        return true;
    }

    /** Takes {@code record}, the next of the stream, as emitted (or left out). */
    void take(StreamRecord<?> record) {
        if (!preserve) {
            return;
        }
        if (record.endsTransaction()) {
            open = null;
            changes = 0;
            return;
        }
        TransactionInfo tx = transaction(record);
        if (tx == null) {
            return;
        }
        if (open != null && !open.equals(tx.id())) {
            throw new IllegalStateException("The stream sent a change of transaction " + tx.id()
                    + " before the end of transaction " + open + ", which '"
                    + CdcSourceOptions.TRANSACTION_BOUNDARIES.key() + "' = 'preserve' needs: " + record);
        }
        open = tx.id();
        changes++;
    }

    /** Whether a checkpoint may fall after the records taken so far. */
    boolean atBoundary() {
        return open == null;
    }

    @Nullable
    private static TransactionInfo transaction(StreamRecord<?> record) {
        ChangeEvent event = record.event();
        return event == null ? null : event.transaction();
    }
}
