package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.model.ChangeEvent;
import java.util.Objects;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One step of a {@link ChangeStream}: an event and the position to resume from right after it,
 * or a position alone when the log moved without a captured change. A position alone may mark the
 * end of a transaction ({@link #transactionEnd}): the commit of the transaction whose events (those
 * with a {@link io.rustcdc.flink.source.model.TransactionInfo}) came last. A connector that marks
 * every end so says by {@link CdcConnector#marksTransactionEnds()}.
 */
@PublicEvolving
public final class StreamRecord<P> {
    @Nullable private final ChangeEvent event;
    private final P position;
    private final boolean transactionEnd;

    private StreamRecord(@Nullable ChangeEvent event, P position, boolean transactionEnd) {
        this.event = event;
        this.position = Objects.requireNonNull(position, "position");
        this.transactionEnd = transactionEnd;
    }

    public static <P> StreamRecord<P> of(ChangeEvent event, P position) {
        return new StreamRecord<>(Objects.requireNonNull(event, "event"), position, false);
    }

    public static <P> StreamRecord<P> progress(P position) {
        return new StreamRecord<>(null, position, false);
    }

    /**
     * The commit of the transaction whose events came last: {@code position} is the one after the
     * whole transaction. Also for a transaction none of whose events was captured.
     */
    public static <P> StreamRecord<P> transactionEnd(P position) {
        return new StreamRecord<>(null, position, true);
    }

    /** The change, or null for a record that only moves the position. */
    @Nullable
    public ChangeEvent event() {
        return event;
    }

    /** Where to resume so that this record is not delivered again. */
    public P position() {
        return position;
    }

    /** Whether this record is a transaction's commit (it has no event then). */
    public boolean endsTransaction() {
        return transactionEnd;
    }

    @Override
    public String toString() {
        return (event != null ? event.toString() : transactionEnd ? "transaction end" : "progress") + " -> " + position;
    }
}
