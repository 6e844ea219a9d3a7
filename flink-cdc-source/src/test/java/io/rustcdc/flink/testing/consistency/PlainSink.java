package io.rustcdc.flink.testing.consistency;

import io.rustcdc.flink.testing.compat.TestSink;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * A sink that hands every record it is given to the test at once and never takes one back, as a
 * plain (at-least-once) sink writes into an upsert table: records of an attempt that failed stay.
 * The MiniCluster runs in the test's JVM, so a static queue per run reaches the test.
 */
final class PlainSink extends TestSink<String> {
    private static final long serialVersionUID = 1L;
    private static final Map<String, BlockingQueue<String>> QUEUES = new ConcurrentHashMap<>();

    private final String run;

    PlainSink(String run) {
        this.run = run;
    }

    static BlockingQueue<String> records(String run) {
        return QUEUES.computeIfAbsent(run, r -> new LinkedBlockingQueue<>());
    }

    static void forget(String run) {
        QUEUES.remove(run);
    }

    @Override
    public SinkWriter<String> createWriter(WriterInitContext context) {
        BlockingQueue<String> queue = records(run);
        return new SinkWriter<>() {
            @Override
            public void write(String element, Context ctx) {
                queue.add(element);
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
