package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.TestKeyOrder;
import io.rustcdc.flink.source.split.TestPosition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;

/**
 * One enumerator on Flink's {@link MockSplitEnumeratorContext}: the test thread plays the
 * coordinator thread and runs the work the enumerator hands to {@code callAsync} one call at a time
 * (on the context's worker thread, its handler on the context's main thread), as Flink would.
 */
final class EnumeratorHarness implements AutoCloseable {
    static final EnumeratorStateSerializer<TestPosition, Long> STATE_SERIALIZER =
            new EnumeratorStateSerializer<>(TestPosition.POSITIONS, TestPosition.MARKS, TestKeyOrder.ASCENDING);

    final RecordingConnector connector;
    final SourceSettings settings;
    final MockSplitEnumeratorContext<CdcSplit> context;
    final CdcEnumerator<TestPosition, Long> enumerator;
    /** The threads that played the coordinator: the test's and the context's main thread. */
    final List<Thread> coordinatorThreads = new ArrayList<>();
    private int assignmentsSeen;
    private final List<Map.Entry<Integer, CdcSplit>> untaken = new ArrayList<>();

    EnumeratorHarness(RecordingConnector connector, SourceSettings settings, int parallelism,
            EnumeratorState<TestPosition, Long> state) {
        this(connector, settings, parallelism, state, null);
    }

    /** @param control the snapshot control, polled by the enumerator's last periodic call; null: none */
    EnumeratorHarness(RecordingConnector connector, SourceSettings settings, int parallelism,
            EnumeratorState<TestPosition, Long> state,
            @javax.annotation.Nullable io.rustcdc.flink.source.control.ControlSettings control) {
        this.connector = connector;
        this.settings = settings;
        this.context = new MockSplitEnumeratorContext<>(parallelism);
        for (int i = 0; i < parallelism; i++) {
            context.registerReader(new ReaderInfo(i, "localhost"));
        }
        this.enumerator = new CdcEnumerator<>(context, connector, settings, state, control);
        coordinatorThreads.add(Thread.currentThread());
        CompletableFuture<Thread> main = new CompletableFuture<>();
        context.runInCoordinatorThread(() -> main.complete(Thread.currentThread()));
        try {
            coordinatorThreads.add(main.get(10, TimeUnit.SECONDS));
        } catch (Exception e) {
            throw new AssertionError("the context's main thread did not run", e);
        }
    }

    static SourceSettings settings(StartupMode mode, int chunkSize) {
        return CdcSource.builder(new RecordingConnector()).includeTables("db.s.*").startupMode(mode).chunkSize(chunkSize)
                .build().settings();
    }

    /** Runs the next call handed to {@code callAsync}, then its handler; rethrows what the handler threw. */
    void runNextCall() throws Throwable {
        context.runNextOneTimeCallable();
    }

    int pendingCalls() {
        return context.getOneTimeCallables().size();
    }

    void runAllCalls() throws Throwable {
        while (pendingCalls() > 0) {
            runNextCall();
        }
    }

    /** The splits assigned since the last look, by subtask. */
    List<Map.Entry<Integer, CdcSplit>> newAssignments() {
        List<Map.Entry<Integer, CdcSplit>> result = new ArrayList<>();
        List<SplitsAssignment<CdcSplit>> all = context.getSplitsAssignmentSequence();
        for (; assignmentsSeen < all.size(); assignmentsSeen++) {
            all.get(assignmentsSeen).assignment().forEach((subtask, splits) ->
                    splits.forEach(split -> result.add(Map.entry(subtask, split))));
        }
        return result;
    }

    /**
     * The splits assigned to {@code subtask} and not taken yet; when there are none, the subtask asks for a split
     * and the calls that asking starts are run first. Assignments to other subtasks wait for their turn.
     */
    List<CdcSplit> assignedTo(int subtask) throws Throwable {
        untaken.addAll(newAssignments());
        if (untaken.stream().noneMatch(a -> a.getKey() == subtask)) {
            enumerator.handleSplitRequest(subtask, null);
            runAllCalls();
            untaken.addAll(newAssignments());
        }
        List<CdcSplit> mine = untaken.stream().filter(a -> a.getKey() == subtask).map(Map.Entry::getValue).toList();
        untaken.removeIf(a -> a.getKey() == subtask);
        return mine;
    }

    /** The enumerator's state after a round trip through its serializer, as a restore reads it. */
    EnumeratorState<TestPosition, Long> checkpoint(long id) throws IOException {
        byte[] bytes = STATE_SERIALIZER.serialize(enumerator.snapshotState(id));
        return STATE_SERIALIZER.deserialize(STATE_SERIALIZER.getVersion(), bytes);
    }

    @Override
    public void close() throws Exception {
        enumerator.close();
        context.close();
    }
}
