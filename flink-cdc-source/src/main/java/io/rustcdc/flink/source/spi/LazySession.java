package io.rustcdc.flink.source.spi;

import javax.annotation.Nullable;
import org.apache.flink.annotation.Internal;

/** A catalogue session opened on first use and closed when no longer needed, to be opened again later. Not thread-safe. */
@Internal
public final class LazySession<P extends io.rustcdc.flink.source.model.SourcePosition & Comparable<P>,
        M extends java.io.Serializable> implements AutoCloseable {
    private final CdcConnector<P, M> connector;
    @Nullable private CatalogSession<P, M> session;

    public LazySession(CdcConnector<P, M> connector) {
        this.connector = connector;
    }

    public CatalogSession<P, M> get() {
        if (session == null) {
            session = connector.openSession();
        }
        return session;
    }

    @Override
    public void close() {
        if (session != null) {
            session.close();
            session = null;
        }
    }
}
