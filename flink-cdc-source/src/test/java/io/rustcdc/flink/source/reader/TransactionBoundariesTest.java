package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.TransactionBoundaries;
import io.rustcdc.flink.source.deserializer.ChangeEventDeserializer;
import io.rustcdc.flink.source.enumerator.TablesAddedEvent;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.TransactionInfo;
import io.rustcdc.flink.source.model.TransactionMarker;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.StreamSplit;
import io.rustcdc.flink.source.split.TablePlan;
import io.rustcdc.flink.source.split.TestConnector;
import io.rustcdc.flink.source.split.TestKeyOrder;
import io.rustcdc.flink.source.split.TestPosition;
import io.rustcdc.flink.testing.CapturedLogs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The reader's emission of the stream under {@code scan.transaction-boundaries}: a checkpoint is taken
 * after every call of {@code pollNext} (the most a task can take), on a random stream of transactions
 * of many sizes with changes of a table not captured among them, non-transactional events and position
 * records between them, delivered to the reader in batches cut at random points. The seed is printed.
 */
@Timeout(120)
class TransactionBoundariesTest {
    private static final TableId T = ChunkStreamingTest.T;
    private static final TableId NOT_CAPTURED = TableId.of("d", "s", "other");
    private static final TableId MESSAGES = TableId.of("d", null, "p__messages");
    private static final int MAX = 700;

    @Test
    void underPreserveEachTransactionIsEmittedBetweenTwoCheckpointsAndOneOverTheBoundIsCutAfterEveryMax()
            throws Exception {
        long seed = System.nanoTime();
        System.out.println("TransactionBoundariesTest seed " + seed);
        Script script = Script.random(new Random(seed));
        try (CapturedLogs logs = CapturedLogs.start("io.rustcdc.none")) {
            Run run = Run.of(script, TransactionBoundaries.PRESERVE, seed);
            for (Map.Entry<String, List<Emitted>> tx : run.byTransaction().entrySet()) {
                List<Emitted> changes = tx.getValue();
                for (int i = 1; i < changes.size(); i++) {
                    long before = changes.get(i - 1).index;
                    long index = changes.get(i).index;
                    boolean cut = (before - 1) / MAX != (index - 1) / MAX; // a cut before each change MAX * k + 1
                    assertThat(changes.get(i).checkpoint != changes.get(i - 1).checkpoint)
                            .as("seed %d: a checkpoint between changes %d and %d of %s", seed, before, index, tx.getKey())
                            .isEqualTo(cut);
                }
            }
            assertThat(script.allowed).as("seed %d: every checkpoint's position is between transactions, or in one "
                    + "over the bound after a multiple of %d of its changes", seed, MAX).containsAll(run.checkpointed);
            for (String tx : script.sizes.keySet()) {
                List<String> warnings = logs.containing("Transaction " + tx + " has more than " + MAX + " changes");
                assertThat(warnings).as("seed %d: the warnings for %s of %d changes", seed, tx, script.sizes.get(tx))
                        .hasSize(script.sizes.get(tx) > MAX ? 1 : 0);
            }
        }
    }

    @Test
    void underSplitACheckpointFallsInsideATransactionOfMoreThanABatch() throws Exception {
        long seed = System.nanoTime();
        System.out.println("TransactionBoundariesTest seed " + seed);
        Script script = Script.random(new Random(seed));
        Run run = Run.of(script, TransactionBoundaries.SPLIT, seed);
        String large = script.sizes.entrySet().stream().filter(e -> e.getValue() > 2 * 1024).findFirst()
                .orElseThrow().getKey();
        assertThat(run.byTransaction().get(large).stream().map(e -> e.checkpoint).distinct().count())
                .as("seed %d: the checkpoints %s was emitted in", seed, large).isGreaterThan(1);
    }

    @Test
    @SuppressWarnings("unchecked")
    void aChunkOfATableAddedWhileATransactionIsOpenIsEmittedWholeInTheCallThatEmitsTheTransaction() throws Exception {
        TableId added = TableId.of("d", "s", "b");
        Script script = new Script();
        script.transaction(new Random(1), "tx-a", 20);
        CountDownLatch chunkRead = new CountDownLatch(1);
        ChunkStreamingTest.CountingConnector rows = new ChunkStreamingTest.CountingConnector((after, out, session) -> {
            for (long id = 1; id <= 3; id++) {
                out.accept(ChangeEvent.builder(Op.READ, added, SourceInfo.snapshot("scripted", null))
                        .after(Row.of(ChunkStreamingTest.TYPE, id)).build());
            }
            chunkRead.countDown();
        });
        rows.collected = new java.util.concurrent.atomic.AtomicLong();
        // the stream holds the transaction's 11th change back until the added table's chunk is read
        Scripted connector = new Scripted(script.records, true, 0).gate(10, chunkRead,
                new ChunkStreamingTest.CountingSession(rows));
        SourceReader<ChangeEvent, CdcSplit> reader = CdcSource.builder(connector).includeTables("s.*")
                .transactionBoundaries(TransactionBoundaries.PRESERVE).build()
                .createReader(new ChunkStreamingTest.Context());
        try {
            reader.start();
            reader.addSplits(List.of(StreamSplit.of(Run.FROM, List.of(), Set.of(T), new SchemaHistory())));
            reader.handleSourceEvents(new TablesAddedEvent(List.of(), false));
            reader.isAvailable().get(20, TimeUnit.SECONDS); // the transaction's first changes are read
            ChunkKey oneChunk = ChunkKey.restored(List.of("id"), List.of(ChunkStreamingTest.TYPE.type(0)),
                    TestKeyOrder.ASCENDING, true);
            reader.handleSourceEvents(new TablesAddedEvent(List.of(TablePlan.start(added, oneChunk)), false));
            ChunkStreamingTest.CountingOutput output = new ChunkStreamingTest.CountingOutput();
            reader.pollNext(output);
            long captured = script.records.stream().filter(r -> r.event() != null && r.event().table().equals(T))
                    .count();
            assertThat(output.collected.get()).as("the transaction's captured changes and the chunk's 3 rows, in one "
                    + "call").isEqualTo(captured + 3);
            StreamSplit<TestPosition, Long> state =
                    (StreamSplit<TestPosition, Long>) reader.snapshotState(1).get(0);
            assertThat(state.tables()).as("the added table, its chunk read").contains(added);
            assertThat(state.position()).isEqualTo(script.records.get(script.records.size() - 1).position());
        } finally {
            reader.close();
        }
    }

    @Test
    void preserveFailsAtBuildOnAConnectorThatDoesNotMarkTransactionEnds() {
        Scripted connector = new Scripted(List.of(), false, 0);
        assertThatThrownBy(() -> CdcSource.builder(connector).transactionBoundaries(TransactionBoundaries.PRESERVE)
                .build())
                .isInstanceOfSatisfying(CdcException.class,
                        e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.CONFIGURATION))
                .hasMessageContaining("'scan.transaction-boundaries' = 'preserve' is not supported by the scripted "
                        + "connector").hasMessageContaining("use 'split'");
        assertThat(CdcSource.builder(connector).build().settings().transactionBoundaries())
                .isEqualTo(TransactionBoundaries.SPLIT);
        assertThatThrownBy(() -> CdcSource.builder(new Scripted(List.of(), true, 0))
                .transactionBoundaries(TransactionBoundaries.PRESERVE).transactionMaxChanges(0).build())
                .hasMessageContaining("'" + CdcSourceOptions.TRANSACTION_MAX_CHANGES.key() + "' must be at least 1");
    }

    /**
     * Each transaction with an emitted change is between one begin and one end marker, whose counts
     * are its captured changes, at any boundary setting, and after restores from checkpoints that fall
     * inside transactions: a reader fails after a random call, and a new one is restored from the last
     * checkpoint, what was emitted after it discarded (as a sink that commits with checkpoints does).
     */
    @Test
    void markersEncloseEachTransactionOnceAcrossRestores() throws Exception {
        long seed = Long.getLong("rustcdc.markers.seed", System.nanoTime());
        System.out.println("TransactionBoundariesTest markers seed " + seed + " (replay with -Drustcdc.markers.seed="
                + seed + ")");
        Random random = new Random(seed);
        Script script = Script.random(random);
        TransactionBoundaries boundaries = random.nextBoolean() ? TransactionBoundaries.SPLIT
                : TransactionBoundaries.PRESERVE;
        List<Object> committed = MarkedRun.of(script, boundaries, random);
        Map<String, Map<TableId, Long>> expected = new LinkedHashMap<>();
        Map<String, TestPosition> ends = new LinkedHashMap<>();
        String tx = null;
        for (StreamRecord<TestPosition> r : script.records) {
            if (r.event() != null && r.event().transaction() != null) {
                tx = r.event().transaction().id();
                if (!r.event().table().equals(NOT_CAPTURED)) {
                    expected.computeIfAbsent(tx, k -> new LinkedHashMap<>()).merge(T, 1L, Long::sum);
                }
            } else if (r.endsTransaction()) {
                ends.put(tx, r.position());
            }
        }
        String open = null;
        Map<TableId, Long> seen = new LinkedHashMap<>();
        List<String> ended = new ArrayList<>();
        for (Object o : committed) {
            if (o instanceof TransactionMarker m && m.kind() == TransactionMarker.Kind.BEGIN) {
                assertThat(open).as("seed %d: a begin of %s inside %s", seed, m.id(), open).isNull();
                open = m.id();
                seen.clear();
            } else if (o instanceof TransactionMarker m) {
                assertThat(m.id()).as("seed %d: the end of the transaction begun", seed).isEqualTo(open);
                assertThat(m.eventsPerTable()).as("seed %d: the counts of %s", seed, m.id()).isEqualTo(seen)
                        .isEqualTo(expected.get(m.id()));
                assertThat(m.source().position()).as("seed %d: the end of %s", seed, m.id()).isEqualTo(ends.get(m.id()));
                ended.add(m.id());
                open = null;
            } else {
                ChangeEvent e = (ChangeEvent) o;
                if (e.transaction() != null) {
                    assertThat(open).as("seed %d: %s inside its transaction's markers", seed, e).isEqualTo(
                            e.transaction().id());
                    seen.merge(e.table(), 1L, Long::sum);
                }
            }
        }
        assertThat(open).as("seed %d: the last transaction ended", seed).isNull();
        assertThat(ended).as("seed %d: every transaction with a captured change, once, in order", seed)
                .containsExactlyElementsOf(expected.keySet());
    }

    @Test
    void schemaHistoryRetentionIsCheckedAtBuildAndReachesTheSettings() {
        Scripted connector = new Scripted(List.of(), false, 0);
        assertThat(CdcSource.builder(connector).build().settings().schemaHistoryRetention()).isEqualTo(256);
        assertThat(CdcSource.builder(connector).schemaHistoryRetention(1).build().settings().schemaHistoryRetention())
                .isEqualTo(1);
        org.apache.flink.configuration.Configuration conf = new org.apache.flink.configuration.Configuration();
        conf.set(CdcSourceOptions.SCHEMA_HISTORY_RETENTION, 100_000);
        assertThat(CdcSource.builder(connector).options(conf).build().settings().schemaHistoryRetention())
                .isEqualTo(100_000);
        for (int wrong : new int[] {0, -1, 100_001}) {
            assertThatThrownBy(() -> CdcSource.builder(connector).schemaHistoryRetention(wrong).build())
                    .isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.CONFIGURATION))
                    .hasMessageContaining("'schema-history.retention' must be from 1 to 100000 entries per table, not "
                            + wrong);
        }
    }

    /** A change as emitted: its transaction, its index in it and the number of checkpoints taken before it. */
    private record Emitted(String transaction, long index, long checkpoint) {}

    /** The records of a stream, and what a checkpoint may hold of it. */
    private static final class Script {
        final List<StreamRecord<TestPosition>> records = new ArrayList<>();
        /** The changes of each transaction, captured or not. */
        final Map<String, Integer> sizes = new LinkedHashMap<>();
        /** The positions a checkpoint may hold under preserve. */
        final Set<TestPosition> allowed = new HashSet<>();
        private long next = 1;

        static Script random(Random random) {
            Script s = new Script();
            s.allowed.add(Run.FROM);
            s.transaction(random, "tx-large", 3 * 1024 + random.nextInt(1000));
            for (int k = 0; k < 120; k++) {
                int size = switch (random.nextInt(10)) {
                    case 0 -> MAX + random.nextInt(3 * MAX); // over the bound, or (rarely) at it
                    case 1, 2 -> MAX - 2 + random.nextInt(5); // around the bound
                    case 3 -> 1;
                    default -> 1 + random.nextInt(200);
                };
                s.transaction(random, "tx-" + k, size);
                while (random.nextInt(3) == 0) {
                    TestPosition p = s.position();
                    s.records.add(random.nextBoolean() ? StreamRecord.progress(p) : StreamRecord.of(
                            ChangeEvent.builder(Op.MESSAGE, MESSAGES, SourceInfo.stream("scripted", p, null))
                                    .after(Row.of(ChunkStreamingTest.TYPE, p.value())).build(), p));
                    s.allowed.add(p);
                }
            }
            return s;
        }

        private void transaction(Random random, String id, int size) {
            sizes.put(id, size);
            for (int i = 1; i <= size; i++) {
                TestPosition p = position();
                TableId table = random.nextInt(8) == 0 ? NOT_CAPTURED : T;
                records.add(StreamRecord.of(ChangeEvent.builder(Op.INSERT, table, SourceInfo.stream("scripted", p, null))
                        .after(Row.of(ChunkStreamingTest.TYPE, p.value()))
                        .transaction(TransactionInfo.of(id, i, TransactionInfo.UNKNOWN)).build(), p));
                if (size > MAX && i % MAX == 0 && i < size) {
                    allowed.add(p);
                }
            }
            TestPosition end = position();
            records.add(StreamRecord.transactionEnd(end));
            allowed.add(end);
        }

        private TestPosition position() {
            return new TestPosition(next++);
        }
    }

    /** The script read by a reader that takes a checkpoint after every call. */
    private static final class Run {
        static final TestPosition FROM = new TestPosition(0);
        final List<Emitted> emitted = new ArrayList<>();
        final List<TestPosition> checkpointed = new ArrayList<>();
        private long checkpoints;

        @SuppressWarnings("unchecked")
        static Run of(Script script, TransactionBoundaries boundaries, long seed) throws Exception {
            Run run = new Run();
            Scripted connector = new Scripted(script.records, true, seed);
            ChunkStreamingTest.Context context = new ChunkStreamingTest.Context();
            SourceReader<ChangeEvent, CdcSplit> reader = CdcSource.builder(connector).includeTables("s.*")
                    .transactionBoundaries(boundaries).transactionMaxChanges(MAX).deserializer(run.recorder())
                    .build().createReader(context);
            TestPosition last = script.records.get(script.records.size() - 1).position();
            try {
                reader.start();
                reader.addSplits(List.of(StreamSplit.of(FROM, List.of(), Set.of(T), new SchemaHistory())));
                reader.handleSourceEvents(new TablesAddedEvent(List.of(), false));
                ChunkStreamingTest.CountingOutput output = new ChunkStreamingTest.CountingOutput();
                TestPosition at = FROM;
                while (!at.equals(last)) {
                    reader.isAvailable().get(20, TimeUnit.SECONDS);
                    reader.pollNext(output);
                    List<CdcSplit> state = reader.snapshotState(++run.checkpoints);
                    at = ((StreamSplit<TestPosition, Long>) state.get(state.size() - 1)).position();
                    run.checkpointed.add(at);
                }
            } finally {
                reader.close();
            }
            return run;
        }

        /** The changes of each transaction in the order emitted (the captured ones only). */
        Map<String, List<Emitted>> byTransaction() {
            Map<String, List<Emitted>> by = new LinkedHashMap<>();
            for (Emitted e : emitted) {
                by.computeIfAbsent(e.transaction, k -> new ArrayList<>()).add(e);
            }
            return by;
        }

        private ChangeEventDeserializer<ChangeEvent> recorder() {
            return new ChangeEventDeserializer<>() {
                private static final long serialVersionUID = 1L;

                @Override
                public void deserialize(ChangeEvent event, Collector<ChangeEvent> out) {
                    if (event.transaction() != null) {
                        emitted.add(new Emitted(event.transaction().id(), event.transaction().index(), checkpoints));
                    }
                    out.collect(event);
                }

                @Override
                public TypeInformation<ChangeEvent> producedType() {
                    return TypeInformation.of(ChangeEvent.class);
                }
            };
        }
    }

    /** The script read by readers that fail now and then and are restored from their last checkpoint. */
    private static final class MarkedRun {
        private final List<Object> output = new ArrayList<>();

        @SuppressWarnings("unchecked")
        static List<Object> of(Script script, TransactionBoundaries boundaries, Random random) throws Exception {
            MarkedRun run = new MarkedRun();
            TestPosition last = script.records.get(script.records.size() - 1).position();
            CdcSplit restored = StreamSplit.of(Run.FROM, List.of(), Set.of(T), new SchemaHistory());
            TestPosition at = Run.FROM;
            int committed = 0;
            long checkpoint = 0;
            while (!at.equals(last)) {
                Scripted connector = new Scripted(script.records, true, random.nextLong());
                CdcSource<ChangeEvent, TestPosition, Long> source = CdcSource.builder(connector).includeTables("s.*")
                        .transactionBoundaries(boundaries).transactionMaxChanges(MAX).deserializer(run.recorder())
                        .build();
                SimpleVersionedSerializer<CdcSplit> serializer = source.getSplitSerializer();
                SourceReader<ChangeEvent, CdcSplit> reader = source.createReader(new ChunkStreamingTest.Context());
                try {
                    reader.start();
                    reader.addSplits(List.of(restored));
                    reader.handleSourceEvents(new TablesAddedEvent(List.of(), false));
                    ChunkStreamingTest.CountingOutput output = new ChunkStreamingTest.CountingOutput();
                    int calls = 1 + random.nextInt(40);
                    for (int call = 0; call < calls && !at.equals(last); call++) {
                        if (!available(reader, 2)) {
                            // the script read to its end, nothing more comes: a checkpoint shows it (else it stalled)
                            restored = checkpoint(reader, serializer, ++checkpoint);
                            at = ((StreamSplit<TestPosition, Long>) restored).position();
                            committed = run.output.size();
                            if (at.equals(last)) {
                                break;
                            }
                            reader.isAvailable().get(20, TimeUnit.SECONDS);
                        }
                        reader.pollNext(output);
                        if (random.nextInt(3) > 0) {
                            restored = checkpoint(reader, serializer, ++checkpoint);
                            at = ((StreamSplit<TestPosition, Long>) restored).position();
                            committed = run.output.size();
                        }
                    }
                } finally {
                    reader.close();
                }
                run.output.subList(committed, run.output.size()).clear(); // a failure: back to the checkpoint
            }
            return run.output;
        }

        private static boolean available(SourceReader<ChangeEvent, CdcSplit> reader, int seconds) throws Exception {
            try {
                reader.isAvailable().get(seconds, TimeUnit.SECONDS);
                return true;
            } catch (java.util.concurrent.TimeoutException nothing) {
                return false;
            }
        }

        /** The stream split of a checkpoint of {@code reader}, through its serializer. */
        private static CdcSplit checkpoint(SourceReader<ChangeEvent, CdcSplit> reader,
                SimpleVersionedSerializer<CdcSplit> serializer, long id) throws Exception {
            List<CdcSplit> state = reader.snapshotState(id);
            return serializer.deserialize(serializer.getVersion(), serializer.serialize(state.get(state.size() - 1)));
        }

        private ChangeEventDeserializer<ChangeEvent> recorder() {
            return new ChangeEventDeserializer<>() {
                private static final long serialVersionUID = 1L;

                @Override
                public void deserialize(ChangeEvent event, Collector<ChangeEvent> out) {
                    output.add(event);
                }

                @Override
                public void transactionMarker(TransactionMarker marker, Collector<ChangeEvent> out) {
                    output.add(marker);
                }

                @Override
                public TypeInformation<ChangeEvent> producedType() {
                    return TypeInformation.of(ChangeEvent.class);
                }
            };
        }
    }

    /**
     * A connector whose stream hands out a script's records; a poll that does not wait returns nothing
     * now and then, so that the reader's batches end at random points.
     */
    private static final class Scripted extends TestConnector {
        private static final long serialVersionUID = 1L;
        private final transient List<StreamRecord<TestPosition>> records;
        private final boolean marksEnds;
        private final long seed;
        private int gateAt = -1;
        private transient CountDownLatch gate;
        private transient CatalogSession<TestPosition, Long> session;

        Scripted(List<StreamRecord<TestPosition>> records, boolean marksEnds, long seed) {
            this.records = records;
            this.marksEnds = marksEnds;
            this.seed = seed;
        }

        /** Holds the records from {@code at} on back until {@code gate} opens; chunks are read by {@code session}. */
        Scripted gate(int at, CountDownLatch gate, CatalogSession<TestPosition, Long> session) {
            this.gateAt = at;
            this.gate = gate;
            this.session = session;
            return this;
        }

        @Override
        public String name() {
            return "scripted";
        }

        @Override
        public boolean marksTransactionEnds() {
            return marksEnds;
        }

        @Override
        public CatalogSession<TestPosition, Long> openSession() {
            if (session == null) {
                throw new UnsupportedOperationException("no chunk is read here");
            }
            return session;
        }

        @Override
        public ChangeStream<TestPosition> openStream(TestPosition from, TableFilter filter) {
            Random gaps = new Random(seed);
            int first = 0;
            while (first < records.size() && records.get(first).position().value() <= from.value()) {
                first++;
            }
            int start = first;
            return new ChangeStream<>() {
                private int next = start;

                @Override
                public StreamRecord<TestPosition> poll(Duration timeout) throws InterruptedException {
                    boolean held = next == gateAt && gate.getCount() > 0;
                    if (held || next == records.size() || (timeout.isZero() && gaps.nextInt(40) == 0)) {
                        Thread.sleep(Math.min(timeout.toMillis(), 5));
                        return null;
                    }
                    return records.get(next++);
                }

                @Override
                public void confirm(TestPosition position) {}

                @Override
                public void close() {}
            };
        }
    }
}
