package io.rustcdc.flink.source.retry;

import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.SourcePosition;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.KeyOrder;
import java.io.Serializable;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * A connector whose sessions and streams retry transient connection failures by the connector's
 * {@link CdcConnector#connectionRetry()}, so that no database call site has to: a session reopens
 * its connection and repeats the failed call (a chunk read only while it has handed on no row, so
 * no row is emitted twice); a stream reopens at the position of the last record it returned, which
 * the reader already holds. Each retry counts in the {@value #RETRIES_METRIC} counter of the
 * reader's or enumerator's metric group. Made where the source creates a reader or its enumerator,
 * never serialized.
 */
@Internal
public final class RetryingConnector<P extends SourcePosition & Comparable<P>, M extends Serializable>
        implements CdcConnector<P, M> {
    private static final long serialVersionUID = 1L;
    /** The counter of retries, on the reader's and on the enumerator's metric group. */
    public static final String RETRIES_METRIC = "connectionRetries";

    private final CdcConnector<P, M> connector;
    private final ConnectionRetry policy;
    private final transient Counter retries;

    private RetryingConnector(CdcConnector<P, M> connector, ConnectionRetry policy, Counter retries) {
        this.connector = connector;
        this.policy = policy;
        this.retries = retries;
    }

    /**
     * {@code connector} with its retry policy applied, counting retries in {@code metrics}' {@value
     * #RETRIES_METRIC}; {@code connector} itself when the policy retries nothing (the counter stays 0).
     */
    public static <P extends SourcePosition & Comparable<P>, M extends Serializable> CdcConnector<P, M> wrap(
            CdcConnector<P, M> connector, MetricGroup metrics) {
        Counter counter = metrics.counter(RETRIES_METRIC);
        ConnectionRetry policy = connector.connectionRetry();
        if (policy.maxRetries() == 0 || connector instanceof RetryingConnector) {
            return connector;
        }
        return new RetryingConnector<>(connector, policy, counter);
    }

    @Override
    public String name() {
        return connector.name();
    }

    @Override
    public SimpleVersionedSerializer<P> positionSerializer() {
        return connector.positionSerializer();
    }

    @Override
    public SimpleVersionedSerializer<M> markSerializer() {
        return connector.markSerializer();
    }

    @Override
    public KeyOrder keyOrder() {
        return connector.keyOrder();
    }

    @Override
    public P parsePosition(String text) {
        return connector.parsePosition(text);
    }

    @Override
    public boolean marksTransactionEnds() {
        return connector.marksTransactionEnds();
    }

    @Override
    public ConnectionRetry connectionRetry() {
        return policy;
    }

    @Override
    public CatalogSession<P, M> openSession() {
        return RetryingSession.open(connector, new Retrier(policy, retries));
    }

    @Override
    public ChangeStream<P> openStream(P from, TableFilter filter) {
        return RetryingStream.open(connector.name() + " change stream", p -> connector.openStream(p, filter), from,
                policy, new Retrier(policy, retries));
    }

    @Override
    public boolean reflects(M mark, P position) {
        return connector.reflects(mark, position);
    }

    @Override
    public P handoffEnd(M mark) {
        return connector.handoffEnd(mark);
    }

    @Override
    public Object tableIdentity(M mark) {
        return connector.tableIdentity(mark);
    }

    @Override
    public String toString() {
        return connector + " (" + policy + ")";
    }
}
