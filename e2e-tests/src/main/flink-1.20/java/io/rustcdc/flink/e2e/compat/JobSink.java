package io.rustcdc.flink.e2e.compat;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;

/**
 * The base of the jobs' own sinks (quickstart, benchmark, e2e) on Flink 1.20, where {@code
 * Sink.createWriter(InitContext)} is still abstract though deprecated: Flink 1.20 calls {@code
 * createWriter(WriterInitContext)}, which the sinks implement, so the old form is never called.
 * Flink 2.x's twin is in {@code src/main/flink-2}.
 */
public abstract class JobSink<T> implements Sink<T> {
    private static final long serialVersionUID = 1L;

    @Override
    @Deprecated
    public SinkWriter<T> createWriter(Sink.InitContext context) {
        throw new UnsupportedOperationException("Flink 1.20 calls createWriter(WriterInitContext)");
    }
}
