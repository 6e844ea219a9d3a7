package io.rustcdc.flink.source.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.EmittedShapes;
import io.rustcdc.flink.source.spi.KeyOrder;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.TestKeyOrder;
import io.rustcdc.flink.source.split.TestPosition;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The retry at the connector boundary, against a scripted connector (the scripts fail where a
 * database would: at open, at a poll, inside a chunk read): a stream resumes exactly after the last
 * record it returned, a chunk read is repeated only before its first row, a final failure and used-up
 * retries end it.
 */
@Timeout(30)
class RetryingConnectorTest {
    private static final ConnectionRetry FAST = ConnectionRetry.of(2, Duration.ofMillis(1), Duration.ofMillis(2));
    private static final TableId TABLE = TableId.of("db", "s", "t");
    private static final TableDescription DESCRIBED = TableDescription.of(TABLE,
            RowShape.of("s", "t", List.of(RowShape.Column.of("id", "integer", false)), List.of("id")),
            RowType.of(List.of("id"), List.of(ValueType.of(ValueKind.INTEGER))));

    private final Metrics metrics = new Metrics();
    private final Scripted scripted = new Scripted(FAST);
    private final CdcConnector<TestPosition, TestPosition> connector = RetryingConnector.wrap(scripted, metrics);

    @Test
    void aStreamReopensAfterTheLastRecordItReturned() throws Exception {
        scripted.openFailures.add(1); // the first open is refused once
        scripted.pollFailures.add(3); // the first stream fails at its third poll
        try (ChangeStream<TestPosition> stream = connector.openStream(new TestPosition(0), TableFilter.all())) {
            scripted.openFailures.add(1); // and its reopen is refused once
            stream.registerMetrics(metrics);
            stream.captured(Set.of(TABLE));
            List<Long> positions = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                positions.add(stream.poll(Duration.ZERO).position().value());
                if (i == 0) {
                    stream.confirm(new TestPosition(1));
                }
            }
            assertThat(positions).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
            assertThat(scripted.openedAt).containsExactly(0L, 0L, 2L, 2L);
            assertThat(metrics.counters.get(RetryingConnector.RETRIES_METRIC).getCount()).isEqualTo(3);
            ScriptedStream now = scripted.streams.get(scripted.streams.size() - 1);
            assertThat(now.captured).containsExactly(TABLE);
            assertThat(now.confirmed).isEqualTo(new TestPosition(1));
            assertThat(metrics.gauges.get("openedAt").getValue()).as("the gauge reads the new stream").isEqualTo(2L);
            assertThat(scripted.streams).hasSize(2);
            assertThat(scripted.streams.get(0).closed).isTrue();
            // two records read by the stream that failed, four by the one reopened: 10 bytes each
            assertThat(stream.bytesRead()).as("bytes read, counted on across the reopen").isEqualTo(60);
        }
        assertThat(scripted.streams).allMatch(s -> s.closed);
    }

    @Test
    void aReopenedStreamResumesTheShapesWithWhatTheRecordsSinceSaid() throws Exception {
        RowShape wider = RowShape.of("s", "t", List.of(RowShape.Column.of("id", "integer", false),
                RowShape.Column.of("note", "text", true)), List.of("id"));
        TableId other = TableId.of("db", "s", "u");
        RowShape otherShape = RowShape.of("s", "u", List.of(RowShape.Column.of("id", "integer", false)), List.of());
        scripted.firstEvents.add(ChangeEvent.builder(Op.SCHEMA_CHANGE, TABLE,
                SourceInfo.stream("scripted", new TestPosition(1), null)).shape(wider)
                .shapeChanges(List.of(ShapeChange.columnAdded(RowShape.Column.of("note", "text", true), 1))).build());
        scripted.pollFailures.add(3);
        try (ChangeStream<TestPosition> stream = connector.openStream(new TestPosition(0), TableFilter.all())) {
            EmittedShapes given = new EmittedShapes();
            given.restore(other, null, otherShape);
            stream.resumeShapes(given);
            for (int i = 0; i < 3; i++) {
                stream.poll(Duration.ZERO);
            }
            assertThat(scripted.streams).hasSize(2);
            assertThat(scripted.streams.get(0).resumed).isEqualTo(given);
            // the stream reopened at 2 knows what a restore at 2 would: the shapes given and the change since
            EmittedShapes reopened = scripted.streams.get(1).resumed;
            assertThat(reopened.leftByChange(TABLE)).isEqualTo(wider);
            assertThat(reopened.rows(other)).isEqualTo(otherShape);
            assertThat(given.leftByChange(TABLE)).as("the reader's copy is its own").isNull();
        }
    }

    @Test
    void retriesUsedUpFailWithTheCause() throws Exception {
        scripted.pollFailures.add(1);
        ChangeStream<TestPosition> stream = connector.openStream(new TestPosition(5), TableFilter.all());
        scripted.openFailures.add(1_000);
        assertThatThrownBy(() -> stream.poll(Duration.ZERO))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.CONNECTION))
                .hasMessageStartingWith("Gave up on reopening the scripted change stream at @5 after 2 retries")
                .hasMessageContaining("refused").hasMessageContaining("Raise 'connect.max-retries'")
                .hasRootCauseMessage("refused");
        assertThat(metrics.counters.get(RetryingConnector.RETRIES_METRIC).getCount()).isEqualTo(2);
        stream.close();
    }

    @Test
    void aFinalFailureIsNotRetried() throws Exception {
        scripted.pollFailures.add(1);
        scripted.failureKind = CdcException.Kind.POSITION_LOST;
        try (ChangeStream<TestPosition> stream = connector.openStream(new TestPosition(0), TableFilter.all())) {
            assertThatThrownBy(() -> stream.poll(Duration.ZERO)).isInstanceOfSatisfying(CdcException.class,
                    e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.POSITION_LOST));
        }
        assertThat(scripted.openedAt).containsExactly(0L);
        assertThat(metrics.counters.get(RetryingConnector.RETRIES_METRIC).getCount()).isZero();
    }

    @Test
    void noRetryPolicyLeavesTheConnectorAsItIs() {
        Scripted plain = new Scripted(ConnectionRetry.none());
        assertThat(RetryingConnector.wrap(plain, metrics)).isSameAs(plain);
        assertThat(metrics.counters).containsKey(RetryingConnector.RETRIES_METRIC);
    }

    @Test
    void aChunkReadIsRepeatedOnlyBeforeItsFirstRow() {
        try (CatalogSession<TestPosition, TestPosition> session = connector.openSession()) {
            List<ChangeEvent> rows = new ArrayList<>();
            scripted.chunkFailures.add(0); // fails before any row: retried on a new session
            assertThat(session.readChunk(DESCRIBED, List.of("id"), null, null, rows::add)).isEqualTo(new TestPosition(3));
            assertThat(rows).hasSize(3);
            assertThat(scripted.sessions).isEqualTo(2);

            rows.clear();
            scripted.chunkFailures.add(2); // fails after two rows: those may be emitted, so it is not repeated
            assertThatThrownBy(() -> session.readChunk(DESCRIBED, List.of("id"), null, null, rows::add))
                    .isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.CONNECTION));
            assertThat(rows).hasSize(2);
            assertThat(scripted.sessions).isEqualTo(2);
            assertThat(session.currentPosition()).as("the next call opens a new session").isEqualTo(new TestPosition(3));
            assertThat(scripted.sessions).isEqualTo(3);
            // three rows, then two, of the second session (the first failed before a row), 5 bytes each
            assertThat(session.bytesRead()).as("bytes read, counted on across reconnects").isEqualTo(25);
        }
        assertThat(metrics.counters.get(RetryingConnector.RETRIES_METRIC).getCount()).isEqualTo(1);
    }

    @Test
    void closingEndsABackOffAtOnce() throws Exception {
        Scripted slow = new Scripted(ConnectionRetry.of(3, Duration.ofMinutes(10), Duration.ofMinutes(10)));
        CdcConnector<TestPosition, TestPosition> retrying = RetryingConnector.wrap(slow, metrics);
        slow.pollFailures.add(1);
        ChangeStream<TestPosition> stream = retrying.openStream(new TestPosition(0), TableFilter.all());
        CompletableFuture<Object> polled = CompletableFuture.supplyAsync(() -> {
            try {
                return stream.poll(Duration.ZERO);
            } catch (Exception e) {
                return e;
            }
        });
        while (metrics.counters.get(RetryingConnector.RETRIES_METRIC).getCount() == 0) {
            Thread.sleep(5);
        }
        stream.close();
        assertThat(polled.get(5, TimeUnit.SECONDS)).isInstanceOf(CdcException.class);
        assertThat(slow.openedAt).containsExactly(0L);
    }

    /**
     * The wrappers override every method of the SPI: a default left to the interface would answer for
     * the connector without asking it (a table identity of null, or no answer to the old rows' check,
     * turns a check off).
     */
    @Test
    void everyMethodOfTheSpiIsPassedOnToTheConnector() throws NoSuchMethodException {
        for (java.lang.reflect.Method m : CdcConnector.class.getMethods()) {
            assertThat(RetryingConnector.class.getMethod(m.getName(), m.getParameterTypes()).getDeclaringClass())
                    .as(m.getName()).isEqualTo(RetryingConnector.class);
        }
        assertThat(connector.tableIdentity(new TestPosition(7))).isEqualTo("table 7");
        for (java.lang.reflect.Method m : io.rustcdc.flink.source.spi.CatalogSession.class.getMethods()) {
            assertThat(RetryingSession.class.getMethod(m.getName(), m.getParameterTypes()).getDeclaringClass())
                    .as("session " + m.getName()).isEqualTo(RetryingSession.class);
        }
    }

    /** Keeps the counters and gauges registered, to read them. */
    private static final class Metrics extends UnregisteredMetricsGroup {
        final Map<String, Counter> counters = new HashMap<>();
        final Map<String, Gauge<?>> gauges = new HashMap<>();

        @Override
        public Counter counter(String name) {
            return counters.computeIfAbsent(name, n -> new SimpleCounter());
        }

        @Override
        public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
            gauges.put(name, gauge);
            return gauge;
        }
    }

    /** A connector that fails as scripted: streams count up from where they open; a chunk has three rows. */
    private static final class Scripted implements CdcConnector<TestPosition, TestPosition> {
        private static final long serialVersionUID = 1L;
        final transient ConnectionRetry retry;
        final transient Deque<Integer> pollFailures = new ArrayDeque<>();
        final transient Deque<Integer> openFailures = new ArrayDeque<>();
        final transient Deque<Integer> chunkFailures = new ArrayDeque<>();
        final transient List<Long> openedAt = new ArrayList<>();
        final transient List<ScriptedStream> streams = new ArrayList<>();
        /** The first record of each stream opened, when there is one: an event rather than progress. */
        final transient Deque<ChangeEvent> firstEvents = new ArrayDeque<>();
        CdcException.Kind failureKind = CdcException.Kind.CONNECTION;
        int sessions;

        Scripted(ConnectionRetry retry) {
            this.retry = retry;
        }

        @Override
        public String name() {
            return "scripted";
        }

        @Override
        public ConnectionRetry connectionRetry() {
            return retry;
        }

        @Override
        public SimpleVersionedSerializer<TestPosition> positionSerializer() {
            return TestPosition.POSITIONS;
        }

        @Override
        public SimpleVersionedSerializer<TestPosition> markSerializer() {
            return TestPosition.POSITIONS;
        }

        @Override
        public KeyOrder keyOrder() {
            return TestKeyOrder.ASCENDING;
        }

        @Override
        public CatalogSession<TestPosition, TestPosition> openSession() {
            sessions++;
            return new ScriptedSession(this);
        }

        @Override
        public ChangeStream<TestPosition> openStream(TestPosition from, TableFilter filter) {
            openedAt.add(from.value());
            Integer refusals = openFailures.peek();
            if (refusals != null) {
                if (refusals > 1) {
                    openFailures.push(openFailures.pop() - 1);
                } else {
                    openFailures.pop();
                }
                throw new CdcException(CdcException.Kind.CONNECTION, "refused");
            }
            ScriptedStream s = new ScriptedStream(from.value(), pollFailures.poll(), failureKind);
            s.first = firstEvents.poll();
            streams.add(s);
            return s;
        }

        @Override
        public boolean reflects(TestPosition mark, TestPosition position) {
            return position.compareTo(mark) <= 0;
        }

        @Override
        public TestPosition handoffEnd(TestPosition mark) {
            return mark;
        }

        @Override
        public Object tableIdentity(TestPosition mark) {
            return "table " + mark.value();
        }
    }

    private static final class ScriptedStream implements ChangeStream<TestPosition> {
        final long openedAt;
        final Integer failAt;
        final CdcException.Kind kind;
        long next;
        int polls;
        Set<TableId> captured;
        TestPosition confirmed;
        boolean closed;
        ChangeEvent first;
        EmittedShapes resumed;
        long bytes;

        ScriptedStream(long from, Integer failAt, CdcException.Kind kind) {
            this.openedAt = from;
            this.next = from + 1;
            this.failAt = failAt;
            this.kind = kind;
        }

        @Override
        public StreamRecord<TestPosition> poll(Duration timeout) {
            if (failAt != null && ++polls == failAt) {
                throw new CdcException(kind, "cut");
            }
            bytes += 10;
            if (first != null) {
                ChangeEvent e = first;
                first = null;
                return StreamRecord.of(e, new TestPosition(next++));
            }
            return StreamRecord.progress(new TestPosition(next++));
        }

        @Override
        public long bytesRead() {
            return bytes;
        }

        @Override
        public void confirm(TestPosition position) {
            confirmed = position;
        }

        @Override
        public void registerMetrics(org.apache.flink.metrics.MetricGroup group) {
            group.gauge("openedAt", () -> openedAt);
        }

        @Override
        public void captured(Set<TableId> tables) {
            captured = tables;
        }

        @Override
        public void resumeShapes(EmittedShapes shapes) {
            resumed = shapes;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static final class ScriptedSession implements CatalogSession<TestPosition, TestPosition> {
        private final Scripted connector;
        private long bytes;

        ScriptedSession(Scripted connector) {
            this.connector = connector;
        }

        @Override
        public TestPosition readChunk(TableDescription table, List<String> keyColumns, Object[] after, Object[] upTo,
                Consumer<ChangeEvent> out) {
            Integer failAfter = connector.chunkFailures.poll();
            for (int row = 0; row < 3; row++) {
                if (failAfter != null && row == failAfter) {
                    throw new CdcException(CdcException.Kind.CONNECTION, "cut during the chunk");
                }
                bytes += 5;
                out.accept(null);
            }
            return new TestPosition(3);
        }

        @Override
        public TestPosition currentPosition() {
            return new TestPosition(3);
        }

        @Override
        public long bytesRead() {
            return bytes;
        }

        @Override
        public void checkSnapshotPrerequisites(List<TableId> tables) {}

        @Override
        public TestPosition prepareStream(List<TableId> tables, boolean fullBeforeImages) {
            return new TestPosition(0);
        }

        @Override
        public List<TableId> discoverTables(TableFilter filter) {
            return List.of(TABLE);
        }

        @Override
        public TableDescription describe(TableId table) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, Object[] after, int chunkSize) {
            return null;
        }

        @Override
        public void close() {}
    }
}
