package io.rustcdc.flink.testing.compat;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;

/**
 * The base of the tests' sinks on Flink 1.20, where {@code Sink.createWriter(InitContext)} is still
 * abstract though deprecated: Flink 1.20 calls {@code createWriter(WriterInitContext)}, which the
 * sinks implement, so the old form is never called. Flink 2.x's twin is in {@code src/test/flink-2}.
 */
public abstract class TestSink<T> implements Sink<T> {
    private static final long serialVersionUID = 1L;

    @Override
    @Deprecated
    public SinkWriter<T> createWriter(Sink.InitContext context) {
        throw new UnsupportedOperationException("Flink 1.20 calls createWriter(WriterInitContext)");
    }
}
