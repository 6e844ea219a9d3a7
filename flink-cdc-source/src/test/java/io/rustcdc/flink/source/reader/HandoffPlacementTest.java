package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.KeyOrder;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TablePlan;
import io.rustcdc.flink.source.split.TestKeyOrder;
import io.rustcdc.flink.source.split.TestPosition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.junit.jupiter.api.Test;

/**
 * The handoff of a table whose key order the connector does not reproduce: the database places its
 * changed keys among the chunks ({@link ChunkKey#placedByServer}), a whole batch per query. The
 * "database" here orders text case-insensitively, which the key order does not know (Java's order of
 * strings would put "B" before "a"), with distinct strings that compare equal, as a {@code _ci}
 * collation has them.
 */
class HandoffPlacementTest {
    private static final TableId T = TableId.of("d", "s", "t");
    private static final String SERVER = "server_ci";
    private static final Comparator<String> DATABASE = String.CASE_INSENSITIVE_ORDER;
    private static final RowType TYPE = RowType.of(List.of("k", "v"),
            List.of(ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.BIGINT)));
    private static final ChunkKey KEY = ChunkKey.restored(List.of("k"), List.of(ValueType.of(ValueKind.TEXT)),
            java.util.Arrays.asList(SERVER), ServerTextOrder.INSTANCE, false);
    private static final TestPosition AT5 = new TestPosition(5);

    private final PlacingConnector connector = new PlacingConnector();

    /** Chunks (-inf, "b"], ("b", "m"], ("m", +inf); the first two reflect position 5, the last does not. */
    private static List<ChunkSplit<HashSet<Long>>> chunks() {
        return List.of(chunk(0, null, "b", true), chunk(1, "b", "m", true), chunk(2, "m", null, false));
    }

    private static ChunkSplit<HashSet<Long>> chunk(int index, String after, String upTo, boolean reflects5) {
        return ChunkSplit.<HashSet<Long>>of(T, KEY, index, after == null ? null : new Object[] {after},
                upTo == null ? null : new Object[] {upTo}).finished(new HashSet<>(reflects5 ? Set.of(5L) : Set.of()));
    }

    @Test
    void theKeyIsSplitAndNeverComparedByTheSource() {
        assertThat(KEY.splittable()).isTrue();
        assertThat(KEY.placedByServer()).isTrue();
        assertThatThrownBy(() -> KEY.compare(new Object[] {"a"}, new Object[] {"b"}))
                .isInstanceOf(IllegalArgumentException.class);
        ChunkKey ordered = ChunkKey.restored(List.of("k"), List.of(ValueType.of(ValueKind.TEXT)),
                java.util.Arrays.asList(TestKeyOrder.CASE_INSENSITIVE), TestKeyOrder.ASCENDING, false);
        assertThat(ordered.placedByServer()).isFalse();
        ChunkKey nullable = ChunkKey.restored(List.of("k"), List.of(ValueType.of(ValueKind.TEXT)),
                java.util.Arrays.asList(SERVER), ServerTextOrder.INSTANCE, true);
        assertThat(nullable.splittable()).isFalse();
    }

    @Test
    void aBatchIsPlacedInOneQueryByTheDatabasesOrder() {
        Handoff<TestPosition, HashSet<Long>> handoff = new Handoff<>(connector, chunks(), List.of(), false);
        // Java's order: "B" < "a" < "b" < "n"; the database's: "a" < "B" = "b" < "n", and "N" after "m"
        List<ChangeEvent> events = List.of(insert("a"), insert("B"), delete("N"), update("Ab", "z"), update("c", "b"),
                insert("m"), insert("M"));
        List<StreamRecord<TestPosition>> batch = new ArrayList<>();
        events.forEach(e -> batch.add(StreamRecord.of(e, AT5)));
        handoff.prepare(batch);
        assertThat(connector.queries).isEqualTo(1);
        assertThat(handoff.decide(events.get(0), AT5)).as("a: first chunk").isNull();
        assertThat(handoff.decide(events.get(1), AT5)).as("B equals the bound b: first chunk").isNull();
        assertThat(handoff.decide(events.get(2), AT5)).as("N: last chunk").isNotNull();
        assertThat(handoff.decide(events.get(3), AT5).op()).as("Ab to z: into the last chunk").isEqualTo(Op.INSERT);
        assertThat(handoff.decide(events.get(4), AT5)).as("c to b: both reflected").isNull();
        assertThat(handoff.decide(events.get(5), AT5)).as("m equals its chunk's bound").isNull();
        assertThat(handoff.decide(events.get(6), AT5)).as("M equals the bound m too").isNull();
        assertThat(connector.queries).as("no query per event").isEqualTo(1);
        assertThat(connector.largestBatch).isEqualTo(9); // the batch's distinct keys

        assertThat(handoff.decide(insert("Zz"), AT5)).as("a key not placed ahead is placed alone").isNotNull();
        assertThat(connector.queries).isEqualTo(2);
        handoff.prepare(List.of(StreamRecord.progress(AT5)));
        assertThat(connector.queries).as("no query for a batch without such changes").isEqualTo(2);
        assertThat(connector.collations).as("asked in the collations the chunks were planned in")
                .containsOnly(List.of(SERVER));
    }

    @Test
    void pendingChangesOfATableBeingAddedAreCheckedByTheDatabaseWhenTheirChunkArrives() {
        Handoff<TestPosition, HashSet<Long>> adding = new Handoff<>(connector, List.of(),
                List.of(TablePlan.start(T, KEY)), false);
        adding.prepare(List.of(StreamRecord.of(insert("A"), AT5)));
        assertThat(connector.queries).as("no chunk read yet: nothing to ask").isZero();
        assertThat(adding.decide(insert("A"), AT5)).isNull();
        assertThat(adding.decide(insert("C"), new TestPosition(7))).isNull();
        adding.addChunk(chunk(0, null, "b", true), false);
        assertThat(connector.queries).as("the pending keys, placed in one query").isEqualTo(1);
        assertThat(adding.decide(insert("a"), new TestPosition(8))).isNotNull();
        ChunkSplit<HashSet<Long>> missesPosition7 = chunk(1, "b", null, true);
        assertThatThrownBy(() -> adding.addChunk(missesPosition7, true)).isInstanceOf(CdcException.class)
                .hasMessageContaining("is not in the chunk read after it");
    }

    @Test
    void aTableInOneChunkNeedsNoQuery() {
        Handoff<TestPosition, HashSet<Long>> whole = new Handoff<>(connector, List.of(chunk(0, null, null, true)),
                List.of(), false);
        whole.prepare(List.of(StreamRecord.of(insert("a"), AT5)));
        assertThat(whole.decide(insert("a"), AT5)).isNull();
        assertThat(whole.decide(insert("z"), new TestPosition(6))).isNotNull();
        assertThat(connector.queries).isZero();
    }

    @Test
    void aFailedPlacementFailsTheDecision() {
        Handoff<TestPosition, HashSet<Long>> handoff = new Handoff<>(connector, chunks(), List.of(), false);
        connector.fail = true;
        assertThatThrownBy(() -> handoff.prepare(List.of(StreamRecord.of(insert("a"), AT5))))
                .isInstanceOf(CdcException.class).hasMessageContaining("connection lost");
        assertThatThrownBy(() -> handoff.decide(insert("a"), AT5)).isInstanceOf(CdcException.class);
    }

    /**
     * A change whose key the stream decodes as another type than the chunk bounds (the key column retyped while the
     * table was snapshotted): the database cannot place it, and the source fails naming the table, not with the
     * connector's ClassCastException, which a restart would meet again.
     */
    @Test
    void aKeyOfAnotherTypeThanTheBoundsFailsNamingTheTable() {
        Handoff<TestPosition, HashSet<Long>> handoff = new Handoff<>(connector, chunks(), List.of(), false);
        RowType retyped = RowType.of(List.of("k", "v"), List.of(ValueType.of(ValueKind.BIGINT), ValueType.of(ValueKind.BIGINT)));
        ChangeEvent change = ChangeEvent.builder(Op.INSERT, T, SourceInfo.stream("x", AT5, null))
                .after(Row.of(retyped, 7L, 1L)).build();
        assertThatThrownBy(() -> handoff.prepare(List.of(StreamRecord.of(insert("a"), AT5), StreamRecord.of(change, AT5))))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                .hasMessageContaining("table " + T.qualifiedName()).hasMessageContaining("reads as (Long)")
                .hasMessageContaining("planned with keys of (String)");
    }

    private static ChangeEvent insert(String k) {
        return ChangeEvent.builder(Op.INSERT, T, SourceInfo.stream("x", AT5, null)).after(Row.of(TYPE, k, 1L)).build();
    }

    private static ChangeEvent delete(String k) {
        return ChangeEvent.builder(Op.DELETE, T, SourceInfo.stream("x", AT5, null)).before(Row.of(TYPE, k, 1L)).build();
    }

    private static ChangeEvent update(String from, String to) {
        return ChangeEvent.builder(Op.UPDATE, T, SourceInfo.stream("x", AT5, null)).before(Row.of(TYPE, from, 1L))
                .after(Row.of(TYPE, to, 1L)).build();
    }

    /** Orders no text; text of collation {@link #SERVER} is placed by the database. */
    private enum ServerTextOrder implements KeyOrder {
        INSTANCE;

        @Override
        public boolean orders(ValueType type) {
            return type.kind() != ValueKind.TEXT;
        }

        @Override
        public int compare(ValueType type, Object a, Object b) {
            return TestKeyOrder.ASCENDING.compare(type, a, b);
        }

        @Override
        public boolean placedByServer(ValueType type, String collation) {
            return type.kind() == ValueKind.TEXT && SERVER.equals(collation);
        }
    }

    /** A mark is the set of positions the chunk reflects; the sessions place keys case-insensitively. */
    private static final class PlacingConnector implements CdcConnector<TestPosition, HashSet<Long>> {
        private static final long serialVersionUID = 1L;
        int queries;
        int largestBatch;
        boolean fail;
        /** The collations each placement was asked in. */
        final List<List<String>> collations = new java.util.ArrayList<>();

        @Override
        public String name() {
            return "placing";
        }

        @Override
        public SimpleVersionedSerializer<TestPosition> positionSerializer() {
            return TestPosition.POSITIONS;
        }

        @Override
        public SimpleVersionedSerializer<HashSet<Long>> markSerializer() {
            throw new UnsupportedOperationException();
        }

        @Override
        public KeyOrder keyOrder() {
            return ServerTextOrder.INSTANCE;
        }

        @Override
        public CatalogSession<TestPosition, HashSet<Long>> openSession() {
            return new PlacingSession();
        }

        @Override
        public ChangeStream<TestPosition> openStream(TestPosition from, TableFilter filter) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean reflects(HashSet<Long> mark, TestPosition position) {
            return mark.contains(position.value());
        }

        @Override
        public TestPosition handoffEnd(HashSet<Long> mark) {
            return new TestPosition(mark.stream().mapToLong(Long::longValue).max().orElse(0) + 1);
        }

        private final class PlacingSession extends ChunkOnlySession<HashSet<Long>> {
            @Override
            public int[] placeKeys(TableId table, List<String> keyColumns, List<ValueType> keyTypes,
                    List<String> keyCollations, List<Object[]> bounds, List<Object[]> keys) {
                if (fail) {
                    throw new CdcException(CdcException.Kind.CONNECTION, "connection lost");
                }
                queries++;
                largestBatch = Math.max(largestBatch, keys.size());
                collations.add(keyCollations);
                int[] ranks = new int[keys.size()];
                for (int i = 0; i < ranks.length; i++) {
                    for (Object[] b : bounds) {
                        if (DATABASE.compare((String) b[0], (String) keys.get(i)[0]) < 0) {
                            ranks[i]++;
                        }
                    }
                }
                return ranks;
            }

            @Override
            public TableDescription describe(TableId table) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Object[] nextChunkEnd(TableDescription table, List<String> keyColumns, Object[] after, int chunkSize) {
                throw new UnsupportedOperationException();
            }

            @Override
            public HashSet<Long> readChunk(TableDescription table, List<String> keyColumns, Object[] after,
                    Object[] upTo, Consumer<ChangeEvent> out) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void close() {
            }
        }
    }
}
