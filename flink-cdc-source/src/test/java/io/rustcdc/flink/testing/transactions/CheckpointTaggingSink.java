package io.rustcdc.flink.testing.transactions;

import io.rustcdc.flink.testing.compat.TestSink;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Tags each row with its subtask and the number of checkpoints (flushes before a barrier) it has
 * seen. The MiniCluster runs in the test's JVM, so a static queue per run reaches the test.
 */
final class CheckpointTaggingSink extends TestSink<String> {
    private static final long serialVersionUID = 1L;
    private static final Map<String, BlockingQueue<Tagged>> QUEUES = new ConcurrentHashMap<>();
    private final String run;

    CheckpointTaggingSink(String run) {
        this.run = run;
    }

    static BlockingQueue<Tagged> queue(String run) {
        return QUEUES.computeIfAbsent(run, r -> new LinkedBlockingQueue<>());
    }

    static void forget(String run) {
        QUEUES.remove(run);
    }

    @Override
    public SinkWriter<String> createWriter(WriterInitContext context) {
        BlockingQueue<Tagged> queue = queue(run);
        int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        return new SinkWriter<>() {
            private long checkpoints;

            @Override
            public void write(String change, Context ctx) {
                String[] f = change.split("\\|");
                queue.add(new Tagged(f[0].equals("-") ? null : f[0], Long.parseLong(f[1]), Integer.parseInt(f[2]),
                        subtask, checkpoints));
            }

            @Override
            public void flush(boolean endOfInput) {
                checkpoints++;
            }

            @Override
            public void close() {}
        };
    }
}
