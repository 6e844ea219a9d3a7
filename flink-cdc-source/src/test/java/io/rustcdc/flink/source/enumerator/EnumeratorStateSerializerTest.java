package io.rustcdc.flink.source.enumerator;

import io.rustcdc.flink.source.split.TablePlan;
import static org.assertj.core.api.Assertions.assertThat;


import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.CdcSplitSerializerTest;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.StreamSplit;
import io.rustcdc.flink.source.split.TestKeyOrder;
import io.rustcdc.flink.source.split.TestPosition;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EnumeratorStateSerializerTest {
    static final EnumeratorStateSerializer<TestPosition, Long> SERIALIZER =
            new EnumeratorStateSerializer<>(TestPosition.POSITIONS, TestPosition.MARKS, TestKeyOrder.ASCENDING);

    /** The state whose version-1 bytes are kept in test resources; never change it. */
    static EnumeratorState<TestPosition, Long> sample() {
        StreamSplit<TestPosition, Long> stream = sampleStream();
        TableId orders = stream.tables().iterator().next();
        ChunkSplit<Long> finished = stream.handoff().get(1);
        ChunkSplit<Long> unread = ChunkSplit.of(orders, finished.key(), 4, finished.upTo(), null);
        TablePlan plan = new TablePlan(TableId.of("shop", "public", "items"), finished.key(), 2, finished.after());
        return new EnumeratorState<>(true, new TestPosition(777), stream.history(), Set.of(orders,
                TableId.of("shop", "public", "items")), List.of(plan), List.of(unread), List.of(unread), List.of(finished),
                EnumeratorState.StreamStatus.RETURNED, stream);
    }

    private static StreamSplit<TestPosition, Long> sampleStream() {
        try {
            return (StreamSplit<TestPosition, Long>) new io.rustcdc.flink.source.split.CdcSplitSerializer<>(
                    TestPosition.POSITIONS, TestPosition.MARKS, TestKeyOrder.ASCENDING).deserialize(1,
                    CdcSplitSerializerTest.class.getResourceAsStream("/serializer-snapshots/stream-split-v1.bin").readAllBytes());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void roundTrips() throws IOException {
        assertSame(SERIALIZER.deserialize(SERIALIZER.getVersion(), SERIALIZER.serialize(sample())), sample());
        EnumeratorState<TestPosition, Long> empty = EnumeratorState.empty();
        EnumeratorState<TestPosition, Long> copy = SERIALIZER.deserialize(SERIALIZER.getVersion(), SERIALIZER.serialize(empty));
        assertThat(copy.streamStatus).isEqualTo(EnumeratorState.StreamStatus.NOT_CREATED);
        assertThat(copy.initialized).isFalse();
        assertThat(copy.history).isNull();
    }

    @Test
    void readsBytesWrittenByVersion1() throws IOException {
        byte[] bytes;
        try (InputStream in = getClass().getResourceAsStream("/serializer-snapshots/enumerator-state-v1.bin")) {
            bytes = in.readAllBytes();
        }
        assertSame(SERIALIZER.deserialize(1, bytes), sample());
    }

    @Test
    void version2WritesTheStreamStatusAsItsCode() throws IOException {
        byte[] frozen;
        try (InputStream in = getClass().getResourceAsStream("/serializer-snapshots/enumerator-state-v2.bin")) {
            frozen = in.readAllBytes();
        }
        assertSame(SERIALIZER.deserialize(2, frozen), sample());
        assertThat(SERIALIZER.deserialize(2, frozen).control).as("version 2 had no snapshot control")
                .isEqualTo(ControlState.EMPTY);
        // (the writer's bytes are not compared: the sample's set of tables iterates in a per-JVM order)
        for (EnumeratorState.StreamStatus status : EnumeratorState.StreamStatus.values()) {
            EnumeratorState<TestPosition, Long> s = sample();
            EnumeratorState<TestPosition, Long> withStatus = new EnumeratorState<>(s.initialized, s.streamStart, s.history,
                    s.tables, s.plans, s.unassigned, s.inFlight, s.finished, status, s.returnedStream);
            assertThat(SERIALIZER.deserialize(SERIALIZER.getVersion(), SERIALIZER.serialize(withStatus)).streamStatus)
                    .isEqualTo(status);
        }
    }

    private static void assertSame(EnumeratorState<TestPosition, Long> actual, EnumeratorState<TestPosition, Long> expected) {
        assertThat(actual.initialized).isEqualTo(expected.initialized);
        assertThat(actual.streamStart).isEqualTo(expected.streamStart);
        assertThat(actual.history.entries()).isEqualTo(expected.history.entries());
        assertThat(actual.tables).isEqualTo(expected.tables);
        assertThat(actual.plans).hasSize(1);
        assertThat(actual.plans.get(0).table()).isEqualTo(expected.plans.get(0).table());
        assertThat(actual.plans.get(0).nextIndex()).isEqualTo(2);
        assertThat(actual.plans.get(0).nextAfter()).isEqualTo(expected.plans.get(0).nextAfter());
        assertThat(actual.unassigned).isEqualTo(expected.unassigned);
        assertThat(actual.inFlight).isEqualTo(expected.inFlight);
        assertThat(actual.finished).isEqualTo(expected.finished);
        assertThat(actual.streamStatus).isEqualTo(expected.streamStatus);
        assertThat(actual.returnedStream).isEqualTo(expected.returnedStream);
    }

    /** Writes the snapshot of the current version; run once when a format version is introduced. */
    public static void main(String[] args) throws IOException {
        Files.write(Path.of(args[0]).resolve("enumerator-state-v" + SERIALIZER.getVersion() + ".bin"),
                SERIALIZER.serialize(sample()));
    }

}
