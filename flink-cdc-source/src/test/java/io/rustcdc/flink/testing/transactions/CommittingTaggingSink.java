package io.rustcdc.flink.testing.transactions;

import io.rustcdc.flink.testing.compat.TestSink;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * A two-phase-commit sink, as a transactional sink into a database would be: each writer's rows between
 * two checkpoint barriers are one batch, committed once the checkpoint completes, and only then reach the
 * run's queue, each tagged with its batch's id: rows of one batch fell in one checkpoint. What an attempt
 * that failed wrote after its last completed checkpoint is never committed, and a batch committed again
 * after a restore is committed once. The MiniCluster runs in the test's JVM, so a static queue per run
 * reaches the test. It pauses where a checkpoint may fall inside a transaction and where one may not ({@link
 * #CUT_PAUSE_MS}, {@link #NO_CUT_PAUSE_MS}).
 */
final class CommittingTaggingSink extends TestSink<String> implements SupportsCommitter<CommittingTaggingSink.Batch> {
    private static final long serialVersionUID = 1L;
    /**
     * How long the writer pauses after the last change before a place where a transaction over the bound may
     * be cut: several checkpoint intervals, so that a checkpoint is due there whatever the machine's speed
     * (the source and this sink are chained; without it a fast server's 20,000 changes could all pass between
     * two checkpoints, ten transactions in a row).
     */
    private static final long CUT_PAUSE_MS = 200;
    /**
     * How long it pauses where no cut may fall, so that a checkpoint is due there too and only a source that
     * keeps it out of the transaction passes: half-way between two places of a cut, and after the 50th change
     * of every fourth transaction within the bound.
     */
    private static final long NO_CUT_PAUSE_MS = 100;
    private static final AtomicLong NEXT_BATCH = new AtomicLong();
    private static final Map<String, Set<Long>> COMMITTED = new ConcurrentHashMap<>();
    private static final Map<String, BlockingQueue<Tagged>> QUEUES = new ConcurrentHashMap<>();
    private static final Map<String, AtomicLong> WRITERS = new ConcurrentHashMap<>();
    private final String run;

    CommittingTaggingSink(String run) {
        this.run = run;
    }

    static BlockingQueue<Tagged> queue(String run) {
        return QUEUES.computeIfAbsent(run, r -> new LinkedBlockingQueue<>());
    }

    /** How many writers the run's attempts created: more than the sink's parallelism after a restore. */
    static long writersCreated(String run) {
        return WRITERS.computeIfAbsent(run, r -> new AtomicLong()).get();
    }

    static void forget(String run) {
        COMMITTED.remove(run);
        QUEUES.remove(run);
        WRITERS.remove(run);
    }

    /** One writer's rows between two barriers. */
    record Batch(long id, int subtask, List<String> changes) {}

    @Override
    public CommittingSinkWriter<String, Batch> createWriter(WriterInitContext context) {
        int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        WRITERS.computeIfAbsent(run, r -> new AtomicLong()).incrementAndGet();
        return new CommittingSinkWriter<>() {
            private List<String> open = new ArrayList<>();

            @Override
            public void write(String change, Context ctx) throws InterruptedException {
                Tagged t = Tagged.parse(change, subtask, 0);
                int max = TransactionBoundariesRun.MAX;
                if (t.tx() >= TransactionBoundariesRun.OVER_BOUND && t.index() % max == 0) {
                    Thread.sleep(CUT_PAUSE_MS);
                } else if (t.tx() >= TransactionBoundariesRun.OVER_BOUND ? t.index() % max == max / 2
                        : t.tx() % 4 == 0 && t.index() == 50) {
                    Thread.sleep(NO_CUT_PAUSE_MS);
                }
                open.add(change);
            }

            @Override
            public Collection<Batch> prepareCommit() {
                if (open.isEmpty()) {
                    return List.of();
                }
                Batch batch = new Batch(NEXT_BATCH.incrementAndGet(), subtask, open);
                open = new ArrayList<>();
                return List.of(batch);
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }

    @Override
    public Committer<Batch> createCommitter(CommitterInitContext context) {
        Set<Long> committed = COMMITTED.computeIfAbsent(run, r -> ConcurrentHashMap.newKeySet());
        return new Committer<>() {
            @Override
            public void commit(Collection<CommitRequest<Batch>> requests) {
                for (CommitRequest<Batch> r : requests) {
                    Batch b = r.getCommittable();
                    if (committed.add(b.id())) {
                        b.changes().forEach(c -> queue(run).add(Tagged.parse(c, b.subtask(), b.id())));
                    }
                }
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public SimpleVersionedSerializer<Batch> getCommittableSerializer() {
        return new SimpleVersionedSerializer<>() {
            @Override
            public int getVersion() {
                return 1;
            }

            @Override
            public byte[] serialize(Batch batch) throws IOException {
                DataOutputSerializer out = new DataOutputSerializer(64);
                out.writeLong(batch.id());
                out.writeInt(batch.subtask());
                out.writeInt(batch.changes().size());
                for (String c : batch.changes()) {
                    out.writeUTF(c);
                }
                return out.getCopyOfBuffer();
            }

            @Override
            public Batch deserialize(int version, byte[] bytes) throws IOException {
                DataInputDeserializer in = new DataInputDeserializer(bytes);
                long id = in.readLong();
                int subtask = in.readInt();
                int n = in.readInt();
                List<String> changes = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    changes.add(in.readUTF());
                }
                return new Batch(id, subtask, changes);
            }
        };
    }
}
