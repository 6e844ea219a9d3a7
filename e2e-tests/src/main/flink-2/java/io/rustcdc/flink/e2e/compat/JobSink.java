package io.rustcdc.flink.e2e.compat;

import org.apache.flink.api.connector.sink2.Sink;

/**
 * The base of the jobs' own sinks (quickstart, benchmark, e2e) on Flink 2.x, where {@code Sink} has
 * one abstract method, {@code createWriter(WriterInitContext)}, which the sinks implement. Flink
 * 1.20's twin (in {@code src/main/flink-1.20}) also implements 1.20's deprecated abstract form.
 */
public abstract class JobSink<T> implements Sink<T> {
    private static final long serialVersionUID = 1L;
}
