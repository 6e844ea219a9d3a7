package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.ConnectionRetry;
import io.rustcdc.flink.source.FinalFailure;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.CdcConnector;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.split.ChunkKey;
import io.rustcdc.flink.source.split.TestKeyOrder;
import io.rustcdc.flink.source.split.ChunkSplit;
import io.rustcdc.flink.source.split.TablePlan;
import io.rustcdc.flink.source.split.TestPosition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.junit.jupiter.api.Test;

/** The handoff's decisions, with a mark that is simply the set of positions a chunk reflects. */
class HandoffTest {
    static final TableId T = TableId.of("d", "s", "t");
    static final RowType TYPE = RowType.of(List.of("id", "v"),
            List.of(ValueType.of(ValueKind.BIGINT), ValueType.of(ValueKind.TEXT)));
    static final ChunkKey KEY = ChunkKey.restored(List.of("id"), List.of(ValueType.of(ValueKind.BIGINT)),
            TestKeyOrder.ASCENDING);

    /** Chunks (-inf, 10], (10, 20], (20, +inf); the first two reflect position 5, the last does not. */
    static List<ChunkSplit<HashSet<Long>>> chunks() {
        return List.of(
                ChunkSplit.<HashSet<Long>>of(T, KEY, 0, null, new Object[] {10L}).finished(new HashSet<>(Set.of(5L))),
                ChunkSplit.<HashSet<Long>>of(T, KEY, 1, new Object[] {10L}, new Object[] {20L})
                        .finished(new HashSet<>(Set.of(5L))),
                ChunkSplit.<HashSet<Long>>of(T, KEY, 2, new Object[] {20L}, null).finished(new HashSet<>()));
    }

    private final Handoff<TestPosition, HashSet<Long>> handoff = new Handoff<>(new FakeConnector(), chunks(), List.of(), false);
    private final TestPosition at5 = new TestPosition(5);

    @Test
    void insertsAndDeletesAreDroppedWhereTheirChunkReflectsThem() {
        assertThat(handoff.decide(insert(3), at5)).isNull();
        assertThat(handoff.decide(insert(25), at5)).isNotNull();
        assertThat(handoff.decide(delete(15), at5)).isNull();
        assertThat(handoff.decide(delete(21), at5)).isNotNull();
        assertThat(handoff.decide(insert(3), new TestPosition(6))).isNotNull();
    }

    @Test
    void aKeyMoveBetweenChunksThatDisagreeIsNarrowed() {
        ChangeEvent toUnreflected = update(5, 25);
        ChangeEvent becameInsert = handoff.decide(toUnreflected, at5);
        assertThat(becameInsert.op()).isEqualTo(Op.INSERT);
        assertThat(becameInsert.after()).isEqualTo(toUnreflected.after());
        assertThat(becameInsert.before()).isNull();

        ChangeEvent fromUnreflected = update(25, 5);
        ChangeEvent becameDelete = handoff.decide(fromUnreflected, at5);
        assertThat(becameDelete.op()).isEqualTo(Op.DELETE);
        assertThat(becameDelete.before()).isEqualTo(fromUnreflected.before());

        assertThat(handoff.decide(update(5, 15), at5)).isNull();
        ChangeEvent neither = update(25, 30);
        assertThat(handoff.decide(neither, at5)).isSameAs(neither);
    }

    @Test
    void anUpdateWithoutOldRowUsesItsNewKey() {
        ChangeEvent e = ChangeEvent.builder(Op.UPDATE, T, SourceInfo.stream("x", at5, null)).after(row(3)).build();
        assertThat(handoff.decide(e, at5)).isNull();
    }

    /** An old row without the chunk key cannot be placed: the source fails, naming the table and the key. */
    @Test
    void anOldRowWithoutTheChunkKeyFailsTheSource() {
        Row keyless = Row.builder(TYPE).set(1, "v").build();
        ChangeEvent delete = ChangeEvent.builder(Op.DELETE, T, SourceInfo.stream("x", at5, null)).before(keyless).build();
        assertThatThrownBy(() -> handoff.decide(delete, at5)).isInstanceOf(CdcException.class)
                .hasMessageContaining("The delete of table s.t at ")
                .hasMessageContaining("has an old row without its chunk key [id] (it lacks [id])")
                .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.PREREQUISITE));
        ChangeEvent update = ChangeEvent.builder(Op.UPDATE, T, SourceInfo.stream("x", at5, null)).before(keyless)
                .after(row(25)).build();
        assertThatThrownBy(() -> handoff.decide(update, at5)).hasMessageContaining("The update of table s.t at ");
        ChangeEvent noOldRow = ChangeEvent.builder(Op.DELETE, T, SourceInfo.stream("x", at5, null)).build();
        assertThatThrownBy(() -> handoff.decide(noOldRow, at5)).hasMessageContaining("chunk key [id] (none at all)");
    }

    @Test
    void aTruncateSeenByOnlySomeChunksCannotBeExact() {
        ChangeEvent truncate = ChangeEvent.builder(Op.TRUNCATE, T, SourceInfo.stream("x", at5, null)).build();
        assertThatThrownBy(() -> handoff.decide(truncate, at5)).isInstanceOf(CdcException.class)
                .hasMessageContaining("was truncated while its snapshot was read");
        assertThat(handoff.decide(truncate, new TestPosition(6))).isSameAs(truncate);
    }

    @Test
    void aTableDroppedOrReplacedWhileSomeChunksWereReadCannotBeExact() {
        ChangeEvent dropped = ChangeEvent.builder(Op.SCHEMA_CHANGE, T, SourceInfo.stream("x", at5, null))
                .after(SchemaChangeRows.of(T, DdlType.DROP_TABLE, "DROP TABLE t"))
                .shapeChanges(List.of(ShapeChange.tableDropped())).build();
        // two chunks were read after the drop (from the table created again), one before: two tables mixed
        assertThatThrownBy(() -> handoff.decide(dropped, at5))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                .hasMessageContaining("Table " + T + " was dropped, renamed or replaced at @5 while its snapshot was read: "
                        + "2 of its 3 chunks were read after that")
                .hasMessageContaining("Start the source without state");
        // PostgreSQL: no DROP, a new relation under the name (an event of CREATE_TABLE)
        RowShape shape = RowShape.of("s", "t", List.of(RowShape.Column.of("id", "bigint", false)), List.of("id"));
        ChangeEvent replaced = ChangeEvent.builder(Op.SCHEMA_CHANGE, T, SourceInfo.stream("x", at5, null))
                .after(SchemaChangeRows.of(T, DdlType.CREATE_TABLE, null)).shape(shape)
                .shapeChanges(List.of(ShapeChange.tableReplaced(shape, "a new relation id"))).build();
        assertThatThrownBy(() -> handoff.decide(replaced, at5)).hasMessageContaining("was dropped, renamed or replaced");
        // every chunk read before it: the event follows the old table's rows
        assertThat(handoff.decide(dropped, new TestPosition(6))).isSameAs(dropped);
        // every chunk read after it: the chunks show only the table now under the name, and the drop is not emitted
        Handoff<TestPosition, HashSet<Long>> allAfter = new Handoff<>(new FakeConnector(), List.of(
                ChunkSplit.<HashSet<Long>>of(T, KEY, 0, null, new Object[] {10L}).finished(new HashSet<>(Set.of(5L))),
                ChunkSplit.<HashSet<Long>>of(T, KEY, 1, new Object[] {10L}, null).finished(new HashSet<>(Set.of(5L)))),
                List.of(), false);
        assertThat(allAfter.decide(dropped, at5)).isNull();
        // other schema changes pass as they are
        ChangeEvent altered = ChangeEvent.builder(Op.SCHEMA_CHANGE, T, SourceInfo.stream("x", at5, null))
                .after(SchemaChangeRows.of(T, DdlType.ALTER_TABLE, "ALTER TABLE t ADD c int")).shape(shape)
                .shapeChanges(List.of(ShapeChange.columnAdded(RowShape.Column.of("c", "int", true), 1))).build();
        assertThat(handoff.decide(altered, at5)).isSameAs(altered);
    }

    /**
     * A CREATE TABLE of the name its connector could not classify (MariaDB's CREATE OR REPLACE TABLE with no
     * shape held: created, or dropped and created again) may have replaced the table the earlier chunks read:
     * with chunks on both sides of it the source fails (it let two tables' chunks through as one before);
     * with every chunk on one side the event passes as it is.
     */
    @Test
    void anUnclassifiedCreateWhileSomeChunksWereReadFails() {
        RowShape shape = RowShape.of("s", "t", List.of(RowShape.Column.of("id", "bigint", false)), List.of("id"));
        ChangeEvent created = ChangeEvent.builder(Op.SCHEMA_CHANGE, T, SourceInfo.stream("x", at5, null))
                .after(SchemaChangeRows.of(T, DdlType.CREATE_TABLE, "CREATE OR REPLACE TABLE t (id bigint primary key)"))
                .shape(shape).shapeChanges(List.of(ShapeChange.unknown(List.of(), shape.columns(),
                        "created, or dropped and created again"))).build();
        assertThatThrownBy(() -> handoff.decide(created, at5))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                .hasMessageContaining("Table " + T + " was created at @5 by a statement that may have replaced it "
                        + "(created, or dropped and created again) while its snapshot was read: 2 of its 3 chunks")
                .hasMessageContaining("Start the source without state");
        assertThat(handoff.decide(created, new TestPosition(6))).isSameAs(created);
        Handoff<TestPosition, HashSet<Long>> allAfter = new Handoff<>(new FakeConnector(), List.of(
                ChunkSplit.<HashSet<Long>>of(T, KEY, 0, null, null).finished(new HashSet<>(Set.of(5L)))), List.of(), false);
        assertThat(allAfter.decide(created, at5)).isSameAs(created);
        // a classified CREATE TABLE (of a table dropped before: its DROP ended the table) passes
        ChangeEvent classified = ChangeEvent.builder(Op.SCHEMA_CHANGE, T, SourceInfo.stream("x", at5, null))
                .after(SchemaChangeRows.of(T, DdlType.CREATE_TABLE, "CREATE TABLE t (id bigint primary key)"))
                .shape(shape).shapeChanges(List.of(ShapeChange.tableCreated(shape))).build();
        assertThat(handoff.decide(classified, at5)).isSameAs(classified);
    }

    @Test
    void otherTablesPassAndTablesLeaveOnceTheStreamIsPastThem() {
        ChangeEvent other = ChangeEvent.builder(Op.INSERT, TableId.of("d", "s", "other"), SourceInfo.stream("x", at5, null))
                .after(row(3)).build();
        assertThat(handoff.decide(other, at5)).isSameAs(other);
        handoff.advance(new TestPosition(5));
        assertThat(handoff.isEmpty()).isFalse(); // handoffEnd of a mark is its largest position + 1: 6
        handoff.advance(new TestPosition(6));
        assertThat(handoff.isEmpty()).isTrue();
        assertThat(handoff.decide(insert(3), at5)).isNotNull();
    }

    @Test
    void aTableBeingAddedDropsChangesOfUnreadChunksAndChecksThemWhenTheChunkArrives() {
        Handoff<TestPosition, HashSet<Long>> adding = new Handoff<>(new FakeConnector(), List.of(),
                List.of(TablePlan.start(T, KEY)), false);
        assertThat(adding.decide(insert(3), at5)).isNull();
        assertThat(adding.decide(insert(15), new TestPosition(7))).isNull();
        adding.addChunk(ChunkSplit.<HashSet<Long>>of(T, KEY, 0, null, new Object[] {10L})
                .finished(new HashSet<>(Set.of(5L))), false);
        assertThat(adding.decide(insert(4), new TestPosition(8))).isNotNull();
        ChunkSplit<HashSet<Long>> missesPosition7 =
                ChunkSplit.<HashSet<Long>>of(T, KEY, 1, new Object[] {10L}, null).finished(new HashSet<>(Set.of(5L)));
        assertThatThrownBy(() -> adding.addChunk(missesPosition7, true)).isInstanceOfSatisfying(CdcException.class, e -> {
            // not final: Flink restarts the task from its last checkpoint (a final kind failed the job at once)
            assertThat(e.kind()).isEqualTo(CdcException.Kind.RESTART);
            assertThat(FinalFailure.mark(e)).isSameAs(e);
            assertThat(ConnectionRetry.retries(e)).isFalse();
        }).hasMessageContaining("is not in the chunk read after it").hasMessageContaining("Nothing was lost");
    }

    @Test
    void aRedeliveredChunkLeavesOutNoChangeOfItsKeys() {
        List<ChunkSplit<HashSet<Long>>> chunks = new java.util.ArrayList<>(chunks());
        chunks.set(1, chunks.get(1).redelivered());
        Handoff<TestPosition, HashSet<Long>> h = new Handoff<>(new FakeConnector(), chunks, List.of(), false);
        assertThat(h.decide(insert(3), at5)).as("its neighbour still decides by its mark").isNull();
        assertThat(h.decide(insert(15), at5)).isNotNull();
        assertThat(h.decide(delete(15), at5)).isNotNull();
        assertThat(h.decide(update(5, 15), at5).op()).as("into the redelivered chunk").isEqualTo(Op.INSERT);
        assertThat(h.remaining()).contains(chunks.get(1));
    }

    @Test
    void aRestoredTableBeingAddedForAnAtLeastOnceSinkLeavesOutNoChangeOfChunksStillToRead() {
        ChunkSplit<HashSet<Long>> readBefore =
                ChunkSplit.<HashSet<Long>>of(T, KEY, 0, null, new Object[] {10L}).finished(new HashSet<>(Set.of(5L)));
        Handoff<TestPosition, HashSet<Long>> adding = new Handoff<>(new FakeConnector(), List.of(readBefore),
                List.of(TablePlan.start(T, KEY).after(new Object[] {10L})), true);
        assertThat(adding.decide(insert(3), at5)).as("a chunk read before the checkpoint decides by its mark").isNull();
        assertThat(adding.decide(insert(15), at5)).as("its chunk is not read yet").isNotNull();
        ChunkSplit<HashSet<Long>> readAfter =
                ChunkSplit.<HashSet<Long>>of(T, KEY, 1, new Object[] {10L}, null).finished(new HashSet<>(Set.of(5L)));
        adding.addChunk(readAfter, true);
        assertThat(adding.decide(insert(15), at5)).isNotNull();
        assertThat(adding.remaining()).containsExactly(readBefore, readAfter.redelivered());
    }

    @Test
    void aTableHandedAgainToARestoredStreamForAnAtLeastOnceSinkLeavesOutNoChangeOfItsKeys() {
        Handoff<TestPosition, HashSet<Long>> fresh = new Handoff<>(new FakeConnector(), List.of(), List.of(), false);
        fresh.startTable(T, KEY, false);
        assertThat(fresh.decide(delete(3), at5)).as("its chunk, read later, shows it").isNull();

        // an attempt that failed may have emitted the row: its delete, older than the next read, must stay
        Handoff<TestPosition, HashSet<Long>> again = new Handoff<>(new FakeConnector(), List.of(), List.of(), false);
        again.startTable(T, KEY, true);
        assertThat(again.decide(delete(3), at5)).isNotNull();
        ChunkSplit<HashSet<Long>> read =
                ChunkSplit.<HashSet<Long>>of(T, KEY, 0, null, null).finished(new HashSet<>(Set.of(5L)));
        again.addChunk(read, true);
        assertThat(again.decide(insert(4), at5)).as("reflected, but its chunk is redelivered").isNotNull();
        assertThat(again.remaining()).containsExactly(read.redelivered());
    }

    @Test
    void shapesAndSchemaChangesEnterTheHistoryOnce() {
        SchemaHistory history = new SchemaHistory();
        ShapeRecorder recorder = new ShapeRecorder(history);
        RowShape a = RowShape.of("s", "t", List.of(RowShape.Column.of("id", "bigint", false)), List.of("id"));
        RowShape b = RowShape.of("s", "t", List.of(RowShape.Column.of("id", "bigint", false),
                RowShape.Column.of("v", "text", true)), List.of("id"));
        recorder.record(ChangeEvent.builder(Op.READ, T, SourceInfo.snapshot("x", null)).after(row(1)).shape(a).build(), at5);
        recorder.record(ChangeEvent.builder(Op.READ, T, SourceInfo.snapshot("x", null)).after(row(2)).shape(a).build(), at5);
        assertThat(history.entries()).hasSize(1);
        recorder.record(ChangeEvent.builder(Op.SCHEMA_CHANGE, T, SourceInfo.stream("x", new TestPosition(9), Instant.EPOCH))
                .after(SchemaChangeRows.of(T, DdlType.ALTER_TABLE, null)).shape(b).build(), new TestPosition(9));
        recorder.record(ChangeEvent.builder(Op.INSERT, T, SourceInfo.stream("x", new TestPosition(10), Instant.EPOCH))
                .after(row(3)).shape(b).build(), new TestPosition(10));
        assertThat(history.entries()).hasSize(2);
        assertThat(history.latest(T)).contains(b);
        // a fresh recorder over the same history (a restore) records nothing for an unchanged table
        new ShapeRecorder(history).record(ChangeEvent.builder(Op.INSERT, T, SourceInfo.stream("x", at5, null))
                .after(row(4)).shape(b).build(), new TestPosition(11));
        assertThat(history.entries()).hasSize(2);
    }

    private static Row row(long id) {
        return Row.of(TYPE, id, "v" + id);
    }

    private ChangeEvent insert(long id) {
        return ChangeEvent.builder(Op.INSERT, T, SourceInfo.stream("x", at5, null)).after(row(id)).build();
    }

    private ChangeEvent delete(long id) {
        return ChangeEvent.builder(Op.DELETE, T, SourceInfo.stream("x", at5, null)).before(row(id)).build();
    }

    private ChangeEvent update(long from, long to) {
        return ChangeEvent.builder(Op.UPDATE, T, SourceInfo.stream("x", at5, null)).before(row(from)).after(row(to)).build();
    }

    /**
     * A mark is the set of positions the chunk reflects, and a negative number in it, if any, names the
     * table the chunk was read from ({@link CdcConnector#tableIdentity}).
     */
    static final class FakeConnector implements CdcConnector<TestPosition, HashSet<Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public String name() {
            return "fake";
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
        public io.rustcdc.flink.source.spi.KeyOrder keyOrder() {
            return TestKeyOrder.ASCENDING;
        }

        @Override
        public CatalogSession<TestPosition, HashSet<Long>> openSession() {
            throw new UnsupportedOperationException();
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
            return new TestPosition(new ArrayList<>(mark).stream().mapToLong(Long::longValue).max().orElse(0) + 1);
        }

        @Override
        public Object tableIdentity(HashSet<Long> mark) {
            return mark.stream().filter(v -> v < 0).findFirst().map(v -> "table " + -v).orElse(null);
        }
    }
}
