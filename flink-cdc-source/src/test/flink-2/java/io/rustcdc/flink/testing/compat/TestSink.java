package io.rustcdc.flink.testing.compat;

import org.apache.flink.api.connector.sink2.Sink;

/**
 * The base of the tests' sinks on Flink 2.x, where {@code Sink} has one abstract method,
 * {@code createWriter(WriterInitContext)}, which the sinks implement. Flink 1.20's twin (in
 * {@code src/test/flink-1.20}) also implements 1.20's deprecated abstract form.
 */
public abstract class TestSink<T> implements Sink<T> {
    private static final long serialVersionUID = 1L;
}
