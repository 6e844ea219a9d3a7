package io.rustcdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.SinkGuarantee;
import io.rustcdc.flink.source.SourceSettings;
import io.rustcdc.flink.source.StartupMode;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.TablePlan;
import io.rustcdc.flink.source.split.TestPosition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.connector.source.SourceEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The reader that holds the stream split streams only once the enumerator has answered it with the
 * tables added while the stream ran that its split lacks: after a failure, the attempt that failed
 * may have taken (and, into a sink that keeps a failed attempt's records, emitted) tables its
 * restored split does not hold. Those come back to it, redelivered for such a sink.
 */
@Timeout(60)
class StreamOwnerTest {
    private static final TableId A = TableId.of("db", "s", "a");
    private static final TableId B = TableId.of("db", "s", "b");

    @Test
    void aReaderRestoredFromBeforeItTookATableIsHandedItAgainAndTheCheckpointForgetsIt() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3);
        try (EnumeratorHarness h = streaming(connector, settings(SinkGuarantee.AT_LEAST_ONCE))) {
            h.enumerator.handleSourceEvent(0, new StreamOwnerEvent(Set.of(A), false));
            assertAnswer(lastAdded(h), List.of(), false);

            connector.table("b", 7, 8);
            h.context.runPeriodicCallable(1); // the search for added tables
            assertAnswer(lastAdded(h), List.of(B), false);
            h.enumerator.handleSourceEvent(0, new TablesAcceptedEvent(List.of(B)));
            assertThat(h.checkpoint(20).tables).contains(B);

            // the subtask fails over to a checkpoint taken before it took b; the enumerator lives on
            h.enumerator.handleSourceEvent(0, new StreamOwnerEvent(Set.of(A), true));
            assertAnswer(lastAdded(h), List.of(B), true);
            assertThat(h.checkpoint(21).tables).as("until the reader takes it again").doesNotContain(B);
            h.enumerator.handleSourceEvent(0, new TablesAcceptedEvent(List.of(B)));
            assertThat(h.checkpoint(22).tables).contains(B);
        }
    }

    @Test
    void aRestoredEnumeratorAnswersOnlyOnceItsSearchFoundTheTablesAnAttemptMayHaveTaken() throws Throwable {
        EnumeratorState<TestPosition, Long> state;
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3);
        try (EnumeratorHarness h = streaming(connector, settings(SinkGuarantee.AT_LEAST_ONCE))) {
            state = h.checkpoint(20);
        }
        for (SinkGuarantee sink : SinkGuarantee.values()) {
            RecordingConnector grown = new RecordingConnector().table("a", 1, 2, 3).table("b", 7, 8);
            try (EnumeratorHarness h = new EnumeratorHarness(grown, settings(sink), 1, state)) {
                h.enumerator.start();
                h.enumerator.handleSourceEvent(0, new StreamOwnerEvent(Set.of(A), true));
                assertThat(sent(h)).as("not before the search for added tables is done").isEmpty();
                h.runAllCalls();
                assertAnswer(lastAdded(h), List.of(B), sink == SinkGuarantee.AT_LEAST_ONCE);
            }
        }
    }

    @Test
    void tablesFoundWhileTheReaderStreamsAreNotRedelivered() throws Throwable {
        RecordingConnector connector = new RecordingConnector().table("a", 1, 2, 3);
        try (EnumeratorHarness h = streaming(connector, settings(SinkGuarantee.AT_LEAST_ONCE))) {
            connector.table("b", 7, 8);
            h.context.runPeriodicCallable(1);
            assertThat(sent(h)).as("no reader holds the stream yet").isEmpty();
            h.enumerator.handleSourceEvent(0, new StreamOwnerEvent(Set.of(A), false));
            assertAnswer(lastAdded(h), List.of(B), false);
        }
    }

    private static SourceSettings settings(SinkGuarantee sink) {
        return CdcSource.builder(new RecordingConnector()).includeTables("db.s.*").startupMode(StartupMode.initial())
                .chunkSize(5).sinkGuarantee(sink).tableDiscoveryInterval(Duration.ofMinutes(1)).build().settings();
    }

    /** An enumerator that has snapshotted {@code connector}'s tables and assigned the stream split to subtask 0. */
    private static EnumeratorHarness streaming(RecordingConnector connector, SourceSettings settings) throws Throwable {
        EnumeratorHarness h = new EnumeratorHarness(connector, settings, 1, EnumeratorState.empty());
        h.enumerator.start();
        h.runNextCall();
        h.enumerator.handleSplitRequest(0, null);
        h.runAllCalls();
        CdcEnumeratorTest.drive(h, h.newAssignments(), new ArrayList<>());
        return h;
    }

    private static List<SourceEvent> sent(EnumeratorHarness h) throws Exception {
        return h.context.getSentSourceEvent().getOrDefault(0, List.of()).stream()
                .filter(e -> !(e instanceof ChunksAcknowledgedEvent)).toList();
    }

    private static TablesAddedEvent lastAdded(EnumeratorHarness h) throws Exception {
        List<SourceEvent> events = sent(h);
        assertThat(events).isNotEmpty();
        assertThat(events.get(events.size() - 1)).isInstanceOf(TablesAddedEvent.class);
        return (TablesAddedEvent) events.get(events.size() - 1);
    }

    private static void assertAnswer(TablesAddedEvent event, List<TableId> tables, boolean redelivered) {
        assertThat(event.tables()).extracting(TablePlan::table).containsExactlyElementsOf(tables);
        assertThat(event.redelivered()).isEqualTo(redelivered);
    }
}
