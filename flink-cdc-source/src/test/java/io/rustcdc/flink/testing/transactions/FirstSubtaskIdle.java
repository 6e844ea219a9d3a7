package io.rustcdc.flink.testing.transactions;

import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.util.UserCodeClassLoader;

/**
 * A source whose first subtask never asks for a split, so that the others read the snapshot and
 * the lowest of them, not the first, takes the stream.
 */
final class FirstSubtaskIdle<T, S extends SourceSplit, E> implements Source<T, S, E> {
    private static final long serialVersionUID = 1L;
    private final Source<T, S, E> source;

    FirstSubtaskIdle(Source<T, S, E> source) {
        this.source = source;
    }

    @Override
    public Boundedness getBoundedness() {
        return source.getBoundedness();
    }

    @Override
    public SplitEnumerator<S, E> createEnumerator(SplitEnumeratorContext<S> context) throws Exception {
        return source.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<S, E> restoreEnumerator(SplitEnumeratorContext<S> context, E state) throws Exception {
        return source.restoreEnumerator(context, state);
    }

    @Override
    public SimpleVersionedSerializer<S> getSplitSerializer() {
        return source.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<E> getEnumeratorCheckpointSerializer() {
        return source.getEnumeratorCheckpointSerializer();
    }

    @Override
    public SourceReader<T, S> createReader(SourceReaderContext context) throws Exception {
        if (context.getIndexOfSubtask() != 0) {
            return source.createReader(context);
        }
        return source.createReader(new SourceReaderContext() {
            @Override
            public SourceReaderMetricGroup metricGroup() {
                return context.metricGroup();
            }

            @Override
            public Configuration getConfiguration() {
                return context.getConfiguration();
            }

            @Override
            public String getLocalHostName() {
                return context.getLocalHostName();
            }

            @Override
            public int getIndexOfSubtask() {
                return 0;
            }

            @Override
            public void sendSplitRequest() {} // idle

            @Override
            public void sendSourceEventToCoordinator(SourceEvent event) {
                context.sendSourceEventToCoordinator(event);
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return context.getUserCodeClassLoader();
            }

            @Override
            public int currentParallelism() {
                return context.currentParallelism();
            }
        });
    }
}
