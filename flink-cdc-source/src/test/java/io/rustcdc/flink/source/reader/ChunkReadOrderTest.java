package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.CdcSource;
import io.rustcdc.flink.source.FinalFailure;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.CdcSplit;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TestConnector;
import io.rustcdc.flink.source.split.TestKeyOrder;
import io.rustcdc.flink.source.split.TestPosition;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.annotation.Nullable;
import org.apache.flink.api.connector.source.SourceReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A reader reads a chunk with a bound with a description of its table that orders the chunk's key as it was planned:
 * a description kept for another planned key (from before the table was planned again) is described anew, one that
 * orders otherwise fails the source before the chunk is read, and one that only widens the key's type passes and is
 * kept. A chunk of the whole table keeps no order and is read with the description kept.
 */
@Timeout(60)
class ChunkReadOrderTest {
    static final TableId T = ChunkStreamingTest.T;
    static final RowType TYPE = RowType.of(List.of("name"), List.of(ValueType.of(ValueKind.TEXT)));
    static final TableDescription PLANNED = described("varchar(10)", TestKeyOrder.CASE_INSENSITIVE);
    static final ChunkKey KEY = ChunkKey.of(PLANNED, TestKeyOrder.ASCENDING, null, "chunk-key");

    @Test
    void aTablePlannedAgainInAnotherOrderIsDescribedAnewAndKeptForItsChunks() throws Exception {
        TableDescription replanned = described("varchar(10)", "test_bin");
        ChunkKey replannedKey = ChunkKey.of(replanned, TestKeyOrder.ASCENDING, null, "chunk-key");
        Describing connector = new Describing(PLANNED, replanned);
        try (Reader r = new Reader(connector)) {
            r.reader.addSplits(List.of(chunk(0, null, new Object[] {"m"}), chunk(1, new Object[] {"m"}, null)));
            r.pollUntilCollected(2);
            r.reader.addSplits(List.of(ChunkSplit.<Long>of(T, replannedKey, 2, null, new Object[] {"m"}),
                    ChunkSplit.<Long>of(T, replannedKey, 3, new Object[] {"m"}, null)));
            r.pollUntilCollected(4);
            assertThat(connector.readWith).as("the descriptions the chunks were read with")
                    .containsExactly(PLANNED, PLANNED, replanned, replanned);
            assertThat(connector.describes.get()).as("described once per planned key").isEqualTo(2);
        }
    }

    @Test
    void aDescriptionThatStillOrdersOtherwiseFailsTheSourceAndReadsNothing() throws Exception {
        Describing connector = new Describing(described("varchar(10)", "test_bin"));
        try (Reader r = new Reader(connector)) {
            r.reader.addSplits(List.of(chunk(0, null, new Object[] {"m"})));
            assertThatThrownBy(() -> r.pollUntilCollected(1))
                    .isInstanceOfSatisfying(FinalFailure.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("The chunk key of table " + T.qualifiedName()
                            + " changed while its snapshot was read (name from text (collation test_ci) to text "
                            + "(collation test_bin))")
                    .rootCause().isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE));
            assertThat(connector.describes.get()).as("described once").isEqualTo(1);
            assertThat(connector.readWith).as("chunks read").isEmpty();
            assertThat(r.output.collected.get()).as("rows emitted").isZero();
        }
    }

    @Test
    void aDescriptionThatOnlyWidensTheKeyPassesAndIsKept() throws Exception {
        TableDescription wider = described("varchar(40)", TestKeyOrder.CASE_INSENSITIVE);
        Describing connector = new Describing(wider, PLANNED);
        try (Reader r = new Reader(connector)) {
            r.reader.addSplits(List.of(chunk(0, null, new Object[] {"m"}), chunk(1, new Object[] {"m"}, null)));
            r.pollUntilCollected(2);
            assertThat(connector.describes.get()).as("describes").isEqualTo(1);
            assertThat(connector.readWith).containsExactly(wider, wider);
        }
    }

    @Test
    void aChunkOfTheWholeTableIsReadWithTheDescriptionKeptWhateverItsOrder() throws Exception {
        TableDescription other = described("varchar(10)", "test_bin");
        Describing connector = new Describing(other, PLANNED);
        try (Reader r = new Reader(connector)) {
            r.reader.addSplits(List.of(chunk(0, null, null)));
            r.pollUntilCollected(1);
            assertThat(connector.describes.get()).as("describes").isEqualTo(1);
            assertThat(connector.readWith).containsExactly(other);
        }
    }

    private static TableDescription described(String dataType, String collation) {
        RowShape shape = RowShape.of("s", "t", List.of(RowShape.Column.of("name", dataType, false)), List.of("name"));
        return TableDescription.of(T, shape, TYPE, List.of(collation));
    }

    private static ChunkSplit<Long> chunk(int index, @Nullable Object[] after, @Nullable Object[] upTo) {
        return ChunkSplit.of(T, KEY, index, after, upTo);
    }

    /**
     * A connector whose describe gives its descriptions in turn (the last one again after), and whose chunk reads each
     * emit one row, recording the description they were given.
     */
    static final class Describing extends TestConnector {
        private static final long serialVersionUID = 1L;
        final transient List<TableDescription> descriptions;
        final transient AtomicInteger describes = new AtomicInteger();
        final transient List<TableDescription> readWith = new CopyOnWriteArrayList<>();

        Describing(TableDescription... descriptions) {
            this.descriptions = List.of(descriptions);
        }

        @Override
        public String name() {
            return "describing";
        }

        @Override
        public CatalogSession<TestPosition, Long> openSession() {
            return new Session();
        }

        @Override
        public ChangeStream<TestPosition> openStream(TestPosition from, TableFilter filter) {
            throw new UnsupportedOperationException();
        }

        private final class Session extends ChunkOnlySession<Long> {
            @Override
            public TableDescription describe(TableId table) {
                return descriptions.get(Math.min(describes.getAndIncrement(), descriptions.size() - 1));
            }

            @Override
            public Long readChunk(TableDescription table, List<String> keyColumns, @Nullable Object[] after,
                    @Nullable Object[] upTo, Consumer<ChangeEvent> out) {
                readWith.add(table);
                out.accept(ChangeEvent.builder(Op.READ, T, SourceInfo.snapshot("describing", null))
                        .after(Row.of(TYPE, after == null ? "a" : "z")).build());
                return 7L;
            }

            @Override
            public void close() {}
        }
    }

    /** A started reader of a connector, and what it emitted. */
    private static final class Reader implements AutoCloseable {
        final ChunkStreamingTest.CountingOutput output = new ChunkStreamingTest.CountingOutput();
        final SourceReader<ChangeEvent, CdcSplit> reader;

        Reader(Describing connector) {
            reader = CdcSource.builder(connector).includeTables("s.t").build()
                    .createReader(new ChunkStreamingTest.Context());
            reader.start();
        }

        void pollUntilCollected(long rows) throws Exception {
            while (output.collected.get() < rows) {
                reader.isAvailable().get(20, TimeUnit.SECONDS);
                reader.pollNext(output);
            }
        }

        @Override
        public void close() throws Exception {
            reader.close();
        }
    }
}
