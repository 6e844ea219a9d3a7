package io.rustcdc.flink.source.spi;

import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.SourcePosition;
import java.io.Serializable;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Everything one database's connector knows, behind one small interface; the framework knows no
 * database. Serializable, so a configured connector travels to the cluster with the job.
 *
 * @param <P> the connector's change-log position: final, immutable, comparable
 * @param <M> what a snapshot chunk reflects (its "mark"), for the exact snapshot-to-stream handoff
 */
@PublicEvolving
public interface CdcConnector<P extends SourcePosition & Comparable<P>, M extends Serializable> extends Serializable {

    /** The connector's identity in events and metrics, e.g. {@code postgres}. */
    String name();

    SimpleVersionedSerializer<P> positionSerializer();

    SimpleVersionedSerializer<M> markSerializer();

    /**
     * How the database orders chunk key values: the order its {@code ORDER BY} gives the key columns
     * of {@link CatalogSession#nextChunkEnd}, by which the framework decides which chunk holds a key.
     */
    KeyOrder keyOrder();

    /**
     * The position written as {@code text} in the connector's own notation, for startup mode {@code
     * specific-offset}.
     *
     * @throws io.rustcdc.flink.source.CdcException of kind CONFIGURATION when the text is not a
     *     position, or the connector cannot start at a given position
     */
    default P parsePosition(String text) {
        throw new io.rustcdc.flink.source.CdcException(io.rustcdc.flink.source.CdcException.Kind.CONFIGURATION,
                "The " + name() + " connector cannot start at a given position; use another 'scan.startup.mode'");
    }

    /**
     * How the source retries this connector's transient connection failures ({@link
     * io.rustcdc.flink.source.CdcException.Kind#CONNECTION}) before it fails the task: the framework
     * reopens sessions and streams by it, so no database call of the connector needs to retry. None
     * unless the connector says (each of ours takes it from its {@code ConnectionSettings}).
     */
    default io.rustcdc.flink.source.ConnectionRetry connectionRetry() {
        return io.rustcdc.flink.source.ConnectionRetry.none();
    }

    /**
     * Whether the stream follows the events of each transaction (those with a {@link
     * io.rustcdc.flink.source.model.TransactionInfo}) by a {@link StreamRecord#transactionEnd} record
     * at its commit, before anything else: what {@code scan.transaction-boundaries = preserve} needs.
     * False unless the connector says.
     */
    default boolean marksTransactionEnds() {
        return false;
    }

    /** Opens a catalogue session: prerequisites, discovery, description, chunking and chunk reads. */
    CatalogSession<P, M> openSession();

    /**
     * Opens the change stream at {@code from}, emitting events of the tables {@code filter}
     * selects; the caller closes it. Never creates what {@link CatalogSession#prepareStream} would:
     * a stream resumes only what still exists, and fails with {@link
     * io.rustcdc.flink.source.CdcException.Kind#POSITION_LOST} when the changes after {@code from}
     * are gone.
     */
    ChangeStream<P> openStream(P from, TableFilter filter);

    /**
     * Whether a chunk read with {@code mark} already holds the effect of the change at {@code
     * position}: if so the stream must not emit that change for the chunk's keys, if not it must.
     */
    boolean reflects(M mark, P position);

    /**
     * The position from which on no change can be reflected by a chunk with {@code mark}: once the
     * stream is there, the chunk needs no more handoff decisions.
     */
    P handoffEnd(M mark);

    /**
     * The table a chunk read with {@code mark} was read from, as the database tells tables apart where
     * one can be dropped and another created under its name between two chunks without the change stream
     * saying so (PostgreSQL: its relation id); null when the mark does not say (the default; a mark from
     * state written before the connector kept it). The framework compares it across one table's chunks
     * ({@code equals}): chunks read from two tables fail the source, since no changelog shows them
     * exactly. Its {@code toString} names it in that failure's message.
     */
    @Nullable
    default Object tableIdentity(M mark) {
        return null;
    }
}
