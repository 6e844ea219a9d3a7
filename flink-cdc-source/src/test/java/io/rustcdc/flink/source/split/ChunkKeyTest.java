package io.rustcdc.flink.source.split;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.TableDescription;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A chunk key orders keys by the order its connector gives, and only splits what that order orders. */
class ChunkKeyTest {
    static final TableId ID = TableId.of("d", "s", "t");
    static final TableDescription KEYLESS = TableDescription.of(ID,
            RowShape.of("s", "t", List.of(RowShape.Column.of("name", "text", true), RowShape.Column.of("n", "integer", false),
                    RowShape.Column.of("maybe", "integer", true)), List.of()),
            RowType.of(List.of("name", "n", "maybe"), List.of(ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.INTEGER),
                    ValueType.of(ValueKind.INTEGER))));

    @Test
    void chunksFollowTheConnectorsOrder() {
        ChunkKey ascending = ChunkKey.of(KEYLESS, TestKeyOrder.ASCENDING, "n", "chunk-key");
        ChunkKey descending = ChunkKey.of(KEYLESS, TestKeyOrder.DESCENDING, "n", "chunk-key");
        // (10, 20] in ascending order holds 15; in descending order (10, 20] is empty and (20, 10] holds 15
        assertThat(ChunkSplit.of(ID, ascending, 1, new Object[] {10L}, new Object[] {20L}).contains(new Object[] {15L}))
                .isTrue();
        assertThat(ChunkSplit.of(ID, descending, 1, new Object[] {10L}, new Object[] {20L}).contains(new Object[] {15L}))
                .isFalse();
        assertThat(ChunkSplit.of(ID, descending, 1, new Object[] {20L}, new Object[] {10L}).contains(new Object[] {15L}))
                .isTrue();
        assertThat(ChunkSplit.of(ID, descending, 0, null, new Object[] {10L}).contains(new Object[] {11L})).isTrue();
        assertThat(ascending.compare(new Object[] {1L}, new Object[] {2L})).isNegative();
        assertThat(descending.compare(new Object[] {1L}, new Object[] {2L})).isPositive();
        assertThat(ascending).isNotEqualTo(descending);
        assertThat(ChunkKey.restored(List.of("n"), List.of(ValueType.of(ValueKind.INTEGER)), TestKeyOrder.ASCENDING))
                .isEqualTo(ascending);
    }

    @Test
    void compositeKeysCompareColumnByColumn() {
        List<ValueType> types = List.of(ValueType.of(ValueKind.INTEGER), ValueType.of(ValueKind.BIGINT));
        ChunkKey key = ChunkKey.restored(List.of("a", "b"), types, TestKeyOrder.ASCENDING);
        assertThat(key.compare(new Object[] {1L, 9L}, new Object[] {2L, 1L})).isNegative();
        assertThat(key.compare(new Object[] {2L, 1L}, new Object[] {2L, 1L})).isZero();
        assertThat(key.compare(new Object[] {2L, 2L}, new Object[] {2L, 1L})).isPositive();
    }

    @Test
    void aKeyTheOrderDoesNotOrderIsOneChunkAndAKeylessTableNeedsAColumn() {
        assertThatThrownBy(() -> ChunkKey.of(KEYLESS, TestKeyOrder.ASCENDING, null, "chunk-key"))
                .isInstanceOf(CdcException.class)
                .hasMessageContaining("s.t has no primary key").hasMessageContaining("'chunk-key' (e.g. s.t:name)");
        assertThatThrownBy(() -> ChunkKey.of(KEYLESS, TestKeyOrder.ASCENDING, "missing", "chunk-key"))
                .hasMessageContaining("has no such column");
        assertThat(ChunkKey.of(KEYLESS, TestKeyOrder.ASCENDING, "name", "chunk-key").splittable()).isFalse();
        assertThat(ChunkKey.of(KEYLESS, TestKeyOrder.ASCENDING, "n", "chunk-key").splittable()).isTrue();
    }

    /**
     * A row whose chunk key changes moves between chunks: with a primary key that is not the chunk key, its read from
     * the new chunk could come before the retraction of its old version, which a consumer keyed by the primary key
     * applies to the new one.
     */
    @Test
    void aConfiguredColumnOfATableWithAPrimaryKeyMustBeInThatKey() {
        RowShape shape = RowShape.of("s", "t", List.of(RowShape.Column.of("a", "integer", false),
                RowShape.Column.of("b", "integer", false), RowShape.Column.of("c", "integer", false)), List.of("a", "b"));
        List<ValueType> integers = List.of(ValueType.of(ValueKind.INTEGER), ValueType.of(ValueKind.INTEGER),
                ValueType.of(ValueKind.INTEGER));
        TableDescription keyed = TableDescription.of(ID, shape, RowType.of(List.of("a", "b", "c"), integers));
        assertThatThrownBy(() -> ChunkKey.requireInPrimaryKey(keyed, "c", "chunk-key"))
                .isInstanceOf(CdcException.class)
                .hasMessageContaining("Option 'chunk-key' names column c of table s.t, which is not in its primary key "
                        + "[a, b]")
                .hasMessageContaining("Name a column of the primary key, or leave the table out of the option")
                .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.CONFIGURATION));
        ChunkKey.requireInPrimaryKey(keyed, "b", "chunk-key");
        ChunkKey.requireInPrimaryKey(keyed, null, "chunk-key");
        ChunkKey.requireInPrimaryKey(KEYLESS, "n", "chunk-key");
        assertThat(ChunkKey.of(keyed, TestKeyOrder.ASCENDING, "c", "chunk-key").columns()).as("in a bounded snapshot")
                .containsExactly("c");
        assertThat(ChunkKey.of(keyed, TestKeyOrder.ASCENDING, "b", "chunk-key").columns()).containsExactly("b");
        assertThat(ChunkKey.of(keyed, TestKeyOrder.ASCENDING, null, "chunk-key").columns()).containsExactly("a", "b");
    }

    @Test
    void aNullableKeyColumnKeepsTheTableInOneChunk() {
        // a row whose key is NULL lies in no key range: split, the snapshot would leave it out
        ChunkKey maybe = ChunkKey.of(KEYLESS, TestKeyOrder.ASCENDING, "maybe", "chunk-key");
        assertThat(maybe.nullable()).isTrue();
        assertThat(maybe.splittable()).isFalse();
        assertThat(maybe).isNotEqualTo(ChunkKey.restored(List.of("maybe"), List.of(ValueType.of(ValueKind.INTEGER)),
                TestKeyOrder.ASCENDING));
        assertThat(ChunkKey.restored(List.of("maybe"), List.of(ValueType.of(ValueKind.INTEGER)), TestKeyOrder.ASCENDING,
                true)).isEqualTo(maybe);
    }

    @Test
    void textIsSplitByTheCollationTheConnectorNames() {
        RowShape shape = RowShape.of("s", "t", List.of(RowShape.Column.of("name", "text", false)), List.of("name"));
        RowType rowType = RowType.of(List.of("name"), List.of(ValueType.of(ValueKind.TEXT)));
        TableDescription collated = TableDescription.of(ID, shape, rowType, List.of(TestKeyOrder.CASE_INSENSITIVE));
        ChunkKey name = ChunkKey.of(collated, TestKeyOrder.ASCENDING, "name", "chunk-key");
        assertThat(name.collations()).containsExactly(TestKeyOrder.CASE_INSENSITIVE);
        assertThat(name.splittable()).isTrue();
        // the order of the collation decides, not Java's: "B" > "a" and "A" = "a" there
        ChunkSplit<Long> chunk = ChunkSplit.of(ID, name, 1, new Object[] {"a"}, new Object[] {"c"});
        assertThat(chunk.contains(new Object[] {"B"})).isTrue();
        assertThat(chunk.contains(new Object[] {"A"})).as("equal to the lower bound: in the chunk before").isFalse();
        assertThat(chunk.contains(new Object[] {"C"})).as("equal to the upper bound").isTrue();
        assertThat(name).isNotEqualTo(ChunkKey.of(TableDescription.of(ID, shape, rowType), TestKeyOrder.ASCENDING,
                "name", "chunk-key"));
        TableDescription other = TableDescription.of(ID, shape, rowType, List.of("unknown_collation"));
        assertThat(ChunkKey.of(other, TestKeyOrder.ASCENDING, "name", "chunk-key").splittable())
                .as("a collation the order does not know").isFalse();
    }

    @Test
    void aChunkIsReadOnlyInTheOrderItsKeyWasPlannedIn() {
        RowShape shape = RowShape.of("s", "t", List.of(RowShape.Column.of("name", "text", false),
                RowShape.Column.of("n", "integer", false)), List.of("name", "n"));
        RowType rowType = RowType.of(List.of("name", "n"), List.of(ValueType.of(ValueKind.TEXT),
                ValueType.of(ValueKind.INTEGER)));
        ChunkKey planned = ChunkKey.of(TableDescription.of(ID, shape, rowType, java.util.Arrays.asList(
                TestKeyOrder.CASE_INSENSITIVE, null)), TestKeyOrder.ASCENDING, null, "chunk-key");
        planned.requireOrderOf(TableDescription.of(ID, RowShape.of("s", "t", List.of(RowShape.Column.of("name",
                "varchar(40)", false), RowShape.Column.of("n", "bigint", false), RowShape.Column.of("added", "integer", true)),
                List.of("name", "n")), RowType.of(List.of("name", "n", "added"), List.of(ValueType.of(ValueKind.TEXT),
                        ValueType.of(ValueKind.BIGINT), ValueType.of(ValueKind.INTEGER))),
                java.util.Arrays.asList(TestKeyOrder.CASE_INSENSITIVE, null, null)));
        assertThatThrownBy(() -> planned.requireOrderOf(TableDescription.of(ID, shape, rowType,
                java.util.Arrays.asList("binary", null)))).isInstanceOfSatisfying(CdcException.class,
                        e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                .hasMessageContaining("The chunk key of table s.t changed while its snapshot was read (name from text "
                        + "(collation " + TestKeyOrder.CASE_INSENSITIVE + ") to text (collation binary))")
                .hasMessageContaining("Start the job without its state");
        assertThatThrownBy(() -> planned.requireOrderOf(TableDescription.of(ID, shape, RowType.of(List.of("name", "n"),
                List.of(ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.TEXT))), java.util.Arrays.asList(
                        TestKeyOrder.CASE_INSENSITIVE, "binary"))))
                .hasMessageContaining("(n from integer to text (collation binary))");
        assertThatThrownBy(() -> planned.requireOrderOf(TableDescription.of(ID, shape, RowType.of(List.of("name", "n"),
                List.of(ValueType.of(ValueKind.TEXT), ValueType.of(ValueKind.UNSIGNED_BIGINT))), java.util.Arrays.asList(
                        TestKeyOrder.CASE_INSENSITIVE, null))))
                .as("values of another class than longs").hasMessageContaining("(n from integer to unsigned_bigint)");
        assertThatThrownBy(() -> planned.requireOrderOf(KEYLESS))
                .hasMessageContaining("(name from text (collation " + TestKeyOrder.CASE_INSENSITIVE + ") to text, name "
                        + "from NOT NULL to nullable)");
        RowShape nullable = RowShape.of("s", "t", List.of(RowShape.Column.of("name", "text", false),
                RowShape.Column.of("n", "integer", true)), List.of("name", "n"));
        assertThatThrownBy(() -> planned.requireOrderOf(TableDescription.of(ID, nullable, rowType,
                java.util.Arrays.asList(TestKeyOrder.CASE_INSENSITIVE, null))))
                .as("a key column made nullable: its ranges would leave out rows whose key became NULL")
                .hasMessageContaining("(n from NOT NULL to nullable)");
        ChunkKey restoredWithoutCollations = ChunkKey.restored(List.of("name"), List.of(ValueType.of(ValueKind.TEXT)),
                TestKeyOrder.ASCENDING, false);
        restoredWithoutCollations.requireOrderOf(TableDescription.of(ID, shape, rowType, java.util.Arrays.asList("binary",
                null)));
    }
}
