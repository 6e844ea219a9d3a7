package io.rustcdc.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.split.TablePlan;
import io.rustcdc.flink.source.split.TestPosition;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Versions 3 to 5 of the enumerator state: version 2 and the snapshot control's flags; then its row filters;
 * then the failed snapshots with their reasons.
 */
class ControlStateSerializerTest {
    private static final EnumeratorStateSerializer<TestPosition, Long> SERIALIZER =
            EnumeratorStateSerializerTest.SERIALIZER;

    /** The state whose version-3 bytes are kept in test resources; never change it. */
    static EnumeratorState<TestPosition, Long> sample() {
        EnumeratorState<TestPosition, Long> s = EnumeratorStateSerializerTest.sample();
        TableId orders = TableId.of("shop", "public", "orders");
        TableId items = TableId.of("shop", "public", "items");
        TablePlan reread = TablePlan.start(orders, s.plans.get(0).key());
        ControlState control = new ControlState(Set.of(items), Set.of(TableId.of("shop", "public", "gone")),
                List.of(reread), Set.of(items), Set.of("1700000000000-abcdef012345", "a1-request"));
        return new EnumeratorState<>(s.initialized, s.streamStart, s.history, s.tables, s.plans, s.unassigned,
                s.inFlight, s.finished, s.streamStatus, s.returnedStream, control);
    }

    /**
     * The state whose version-4 bytes are kept in test resources; never change it: version 3's, with the
     * reread's plan filtered (a split format 7 plan) and the row filters of the readout.
     */
    static EnumeratorState<TestPosition, Long> sampleWithRowFilters() {
        EnumeratorState<TestPosition, Long> s = sample();
        ControlState c = s.control;
        TablePlan reread = c.rereads().get(0);
        TablePlan filtered = TablePlan.start(reread.table(), reread.key(), "tenant_id = 42");
        ControlState control = new ControlState(c.paused(), c.stopped(), List.of(filtered), c.streamSnapshotting(),
                c.applied(), Map.of(reread.table(), "tenant_id = 42", TableId.of("shop", "public", "items"), ""));
        return new EnumeratorState<>(s.initialized, s.streamStart, s.history, s.tables, s.plans, s.unassigned,
                s.inFlight, s.finished, s.streamStatus, s.returnedStream, control);
    }

    /**
     * The state whose version-5 bytes are kept in test resources; never change it: version 4's, with a
     * stopped table whose requested snapshot failed and its reason (not ASCII only).
     */
    static EnumeratorState<TestPosition, Long> sampleWithFailures() {
        EnumeratorState<TestPosition, Long> s = sampleWithRowFilters();
        ControlState c = s.control;
        ControlState control = new ControlState(c.paused(), c.stopped(), c.rereads(), c.streamSnapshotting(),
                c.applied(), c.rowFilters(), Map.of(TableId.of("shop", "public", "gone"),
                        "ERROR: invalid input syntax for type integer: \"x\u00e9\" Where: SQL function \"f\"\u2026"));
        return new EnumeratorState<>(s.initialized, s.streamStart, s.history, s.tables, s.plans, s.unassigned,
                s.inFlight, s.finished, s.streamStatus, s.returnedStream, control);
    }

    @Test
    void theControlFlagsRoundTrip() throws IOException {
        assertThat(SERIALIZER.getVersion()).isEqualTo(EnumeratorStateSerializer.VERSION_5);
        assertSameControl(SERIALIZER.deserialize(5, SERIALIZER.serialize(sample())).control, sample().control);
        assertSameControl(SERIALIZER.deserialize(5, SERIALIZER.serialize(sampleWithRowFilters())).control,
                sampleWithRowFilters().control);
        assertSameControl(SERIALIZER.deserialize(5, SERIALIZER.serialize(sampleWithFailures())).control,
                sampleWithFailures().control);
        assertThat(SERIALIZER.deserialize(5, SERIALIZER.serialize(EnumeratorState.empty())).control)
                .isEqualTo(ControlState.EMPTY);
    }

    @Test
    void readsBytesWrittenByVersion5() throws IOException {
        assertReadsAs(5, sampleWithFailures());
    }

    @Test
    void readsBytesWrittenByVersion4() throws IOException {
        EnumeratorState<TestPosition, Long> read = SERIALIZER.deserialize(4, frozen(4));
        assertSameControl(read.control, sampleWithRowFilters().control);
        assertThat(read.control.rereads().get(0).rowFilter()).isEqualTo("tenant_id = 42");
        assertThat(read.control.rowFilters()).containsEntry(TableId.of("shop", "public", "items"), "");
        // version 4 knew no failed snapshot: a table whose requested snapshot failed reads stopped
        assertThat(read.control.failed()).isEmpty();
        // version 3 knew no row filter: the readout falls back on the configured one
        assertThat(SERIALIZER.deserialize(3, frozen(3)).control.rowFilters()).isEmpty();
    }

    @Test
    void readsBytesWrittenByVersion3() throws IOException {
        assertReadsAs(3, sample());
    }

    private static void assertReadsAs(int version, EnumeratorState<TestPosition, Long> expected) throws IOException {
        EnumeratorState<TestPosition, Long> read = SERIALIZER.deserialize(version, frozen(version));
        assertSameControl(read.control, expected.control);
        assertThat(read.tables).isEqualTo(expected.tables);
        assertThat(read.returnedStream).isEqualTo(expected.returnedStream);
    }

    /** The bytes version {@code version} wrote, kept in test resources. */
    private static byte[] frozen(int version) throws IOException {
        try (InputStream in = ControlStateSerializerTest.class.getResourceAsStream(
                "/serializer-snapshots/enumerator-state-v" + version + ".bin")) {
            return in.readAllBytes();
        }
    }

    private static void assertSameControl(ControlState actual, ControlState expected) {
        assertThat(actual.paused()).isEqualTo(expected.paused());
        assertThat(actual.stopped()).isEqualTo(expected.stopped());
        assertThat(actual.streamSnapshotting()).isEqualTo(expected.streamSnapshotting());
        assertThat(actual.applied()).isEqualTo(expected.applied());
        assertThat(actual.rereads()).isEqualTo(expected.rereads());
        assertThat(actual.rowFilters()).isEqualTo(expected.rowFilters());
        assertThat(actual.failed()).isEqualTo(expected.failed());
    }

    /** Writes the current version's bytes (version 5's: {@link #sampleWithFailures}); run once per version. */
    public static void main(String[] args) throws IOException {
        Files.write(Path.of(args[0]).resolve("enumerator-state-v" + SERIALIZER.getVersion() + ".bin"),
                SERIALIZER.serialize(sampleWithFailures()));
    }
}
