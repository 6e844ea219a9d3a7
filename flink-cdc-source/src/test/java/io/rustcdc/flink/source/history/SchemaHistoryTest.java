package io.rustcdc.flink.source.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.TableId;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchemaHistoryTest {
    static final TableId ORDERS = TableId.of("shop", "public", "orders");
    static final RowShape.Column ID = RowShape.Column.of("id", "bigint", false);
    static final RowShape.Column NOTE = RowShape.Column.of("note", "text", true);
    static final RowShape A = shape(ID);
    static final RowShape B = shape(ID, NOTE);
    static final Instant T0 = Instant.parse("2024-03-30T23:30:00Z");

    @Test
    void recordReturnsIncreasingVersions() {
        SchemaHistory h = new SchemaHistory();
        assertThat(h.latestVersion()).isZero();
        assertThat(h.recordDdl("0/10", SchemaChange.create(ORDERS, "CREATE TABLE ...", A, T0))).isEqualTo(1);
        assertThat(h.recordDdl("0/20",
                SchemaChange.alter(ORDERS, "ALTER ...", B, List.of(ColumnChange.add(NOTE)), T0.plusSeconds(1))))
                .isEqualTo(2);
        assertThat(h.latestVersion()).isEqualTo(2);
        assertThat(h.latest(ORDERS)).contains(B);
    }

    @Test
    void redeliveredEntryReturnsItsVersionAndChangesNothing() {
        SchemaHistory h = new SchemaHistory();
        h.recordDdl("0/10", SchemaChange.create(ORDERS, "CREATE TABLE ...", A, T0));
        long v = h.recordDdl("0/20", SchemaChange.alter(ORDERS, "ALTER", B, List.of(), T0));
        assertThat(h.recordDdl("0/20", SchemaChange.alter(ORDERS, "ALTER", B, List.of(), T0))).isEqualTo(v);
        assertThat(h.entries()).hasSize(2);
        assertThat(h.latestVersion()).isEqualTo(v);
    }

    @Test
    void tableAlteredAToBToAHasThreeEntriesAndTheThirdIsNotTheFirst() {
        SchemaHistory h = new SchemaHistory();
        long v1 = h.recordDdl("0/10", SchemaChange.create(ORDERS, "CREATE", A, T0));
        long v2 = h.recordDdl("0/20", SchemaChange.alter(ORDERS, "ADD note", List.of(ColumnChange.add(NOTE)), T0.plusSeconds(1)));
        long v3 = h.recordDdl("0/30",
                SchemaChange.alter(ORDERS, "DROP note", List.of(ColumnChange.drop("note")), T0.plusSeconds(2)));
        assertThat(List.of(v1, v2, v3)).containsExactly(1L, 2L, 3L);
        assertThat(h.entries()).hasSize(3);
        assertThat(h.atVersion(ORDERS, v2)).contains(B);
        assertThat(h.atVersion(ORDERS, v3)).contains(A);
        assertThat(h.atVersion(ORDERS, v3).get().id()).isEqualTo(A.id());
        // a row shape identity is per occurrence: A again after B is recorded again
        long s1 = h.recordDdl("shape:public.orders:0/40", SchemaChange.rowShape(ORDERS, B, T0.plusSeconds(3)));
        long s2 = h.recordDdl("shape:public.orders:0/50", SchemaChange.rowShape(ORDERS, A, T0.plusSeconds(4)));
        assertThat(s2).isGreaterThan(s1);
        assertThat(h.latest(ORDERS)).contains(A);
    }

    @Test
    void replayedAddColumnIsNotAppliedTwice() {
        SchemaHistory h = new SchemaHistory();
        h.recordDdl("0/10", SchemaChange.create(ORDERS, "CREATE", A, T0));
        SchemaChange add = SchemaChange.alter(ORDERS, "ALTER TABLE orders ADD COLUMN note text",
                List.of(ColumnChange.add(NOTE)), T0.plusSeconds(1));
        long first = h.recordDdl("0/20", add);
        // the runtime recorded the change, crashed before its checkpoint, and replays it on restart
        long replay = h.recordDdl("0/20", add);
        assertThat(replay).isEqualTo(first);
        assertThat(h.latest(ORDERS)).contains(B);
        assertThat(h.entries()).hasSize(2);
    }

    @Test
    void sameDiffWithoutIdentityIsAMisfitAndLeavesHistoryUnchanged() {
        SchemaHistory h = new SchemaHistory();
        h.recordDdl("0/10", SchemaChange.create(ORDERS, "CREATE", A, T0));
        SchemaChange add = SchemaChange.alter(ORDERS, "ALTER TABLE orders ADD COLUMN note text",
                List.of(ColumnChange.add(NOTE)), T0);
        h.recordDdl("", add);
        assertThatThrownBy(() -> h.recordDdl("", add))
                .isInstanceOf(CdcException.class)
                .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.SCHEMA_HISTORY))
                .hasMessageContaining("ADD note text NULL")
                .hasMessageContaining("already exists");
        assertThat(h.entries()).hasSize(2);
        assertThat(h.latestVersion()).isEqualTo(2);
    }

    @Test
    void emptyIdentityOptsOutOfIdempotency() {
        SchemaHistory h = new SchemaHistory();
        h.recordDdl("", SchemaChange.rowShape(ORDERS, A, T0));
        h.recordDdl("", SchemaChange.rowShape(ORDERS, A, T0));
        assertThat(h.entries()).hasSize(2);
    }

    @Test
    void diffForATableTheHistoryHasNeverSeenIsRejected() {
        SchemaHistory h = new SchemaHistory();
        assertThatThrownBy(() -> h.recordDdl("0/20",
                        SchemaChange.alter(ORDERS, "ALTER TABLE orders ADD note text", List.of(ColumnChange.add(NOTE)), T0)))
                .isInstanceOf(CdcException.class)
                .hasMessageContaining("holds no shape of shop:public.orders");
        assertThat(h.entries()).isEmpty();
        assertThat(h.latestVersion()).isZero();
    }

    @Test
    void diffOperationsThatDoNotFitAreRejected() {
        SchemaHistory h = new SchemaHistory();
        h.recordDdl("c", SchemaChange.create(ORDERS, "CREATE", B, T0));
        assertThatThrownBy(() -> h.recordDdl("x", alterDiff(ColumnChange.drop("missing"))))
                .hasMessageContaining("no such column");
        assertThatThrownBy(() -> h.recordDdl("y", alterDiff(ColumnChange.modify(RowShape.Column.of("missing", "int", true)))))
                .hasMessageContaining("no such column");
        assertThatThrownBy(() -> h.recordDdl("z", alterDiff(ColumnChange.rename("note", "id"))))
                .hasMessageContaining("already exists");
        assertThatThrownBy(() -> h.recordDdl("w", alterDiff(ColumnChange.add(RowShape.Column.of("x", "int", true), 9))))
                .hasMessageContaining("only 2 columns");
        assertThat(h.entries()).hasSize(1);
    }

    @Test
    void diffsModifyRenameDropAndPositionedAdd() {
        SchemaHistory h = new SchemaHistory();
        h.recordDdl("c", SchemaChange.create(ORDERS, "CREATE", B, T0));
        h.recordDdl("1", alterDiff(ColumnChange.modify(RowShape.Column.of("note", "character varying(64)", false))));
        h.recordDdl("2", alterDiff(ColumnChange.rename("id", "order_id")));
        h.recordDdl("3", alterDiff(ColumnChange.add(RowShape.Column.of("first", "int", true), 0)));
        RowShape now = h.latest(ORDERS).orElseThrow();
        assertThat(now.columns()).containsExactly(RowShape.Column.of("first", "int", true),
                RowShape.Column.of("order_id", "bigint", false), RowShape.Column.of("note", "character varying(64)", false));
        assertThat(now.primaryKey()).containsExactly("order_id");
        h.recordDdl("4", alterDiff(ColumnChange.drop("order_id")));
        assertThat(h.latest(ORDERS).orElseThrow().primaryKey()).isEmpty();
    }

    @Test
    void dropLeavesATombstoneAndCreateRevivesTheTable() {
        SchemaHistory h = new SchemaHistory();
        long created = h.recordDdl("1", SchemaChange.create(ORDERS, "CREATE", A, T0));
        long dropped = h.recordDdl("2", SchemaChange.drop(ORDERS, "DROP TABLE orders", T0.plusSeconds(10)));
        assertThat(h.latest(ORDERS)).isEmpty();
        assertThat(h.atVersion(ORDERS, created)).contains(A);
        assertThat(h.atVersion(ORDERS, dropped)).isEmpty();
        h.recordDdl("3", SchemaChange.create(ORDERS, "CREATE", B, T0.plusSeconds(20)));
        assertThat(h.latest(ORDERS)).contains(B);
        assertThat(h.entries().get(1).shape()).isNull();
    }

    @Test
    void lookupByTime() {
        SchemaHistory h = new SchemaHistory();
        h.recordDdl("1", SchemaChange.create(ORDERS, "CREATE", A, T0));
        h.recordDdl("2", SchemaChange.alter(ORDERS, "ALTER", B, List.of(), T0.plusSeconds(60)));
        assertThat(h.atTime(ORDERS, T0.minusSeconds(1))).isEmpty();
        assertThat(h.atTime(ORDERS, T0)).contains(A);
        assertThat(h.atTime(ORDERS, T0.plusSeconds(59))).contains(A);
        assertThat(h.atTime(ORDERS, T0.plusSeconds(60))).contains(B);
        assertThat(h.atTime(TableId.of("shop", "public", "other"), T0)).isEmpty();
    }

    @Test
    void tablesAreKeptApartByTheirWholeIdentity() {
        SchemaHistory h = new SchemaHistory();
        TableId otherSchema = TableId.of("shop", "archive", "orders");
        h.recordDdl("1", SchemaChange.create(ORDERS, "CREATE", A, T0));
        h.recordDdl("2", SchemaChange.create(otherSchema, "CREATE",
                RowShape.of("archive", "orders", List.of(ID, NOTE), List.of("id")), T0));
        assertThat(h.latest(ORDERS)).contains(A);
        assertThat(h.latest(otherSchema).orElseThrow().columns()).hasSize(2);
    }

    @Test
    void retentionKeepsTheLastEntriesPerTableByDefault256() {
        SchemaHistory h = new SchemaHistory();
        assertThat(h.retention()).isEqualTo(256);
        TableId other = TableId.of("shop", "public", "other");
        h.recordDdl("other", SchemaChange.create(other, "CREATE", RowShape.of("public", "other", List.of(ID), List.of()), T0));
        for (int i = 0; i < 300; i++) {
            h.recordDdl("shape:" + i, SchemaChange.rowShape(ORDERS, i % 2 == 0 ? A : B, T0.plusSeconds(i)));
        }
        assertThat(h.entries()).hasSize(257);
        assertThat(h.latest(other)).isPresent();
        assertThat(h.atVersion(ORDERS, 2)).as("pruned").isEmpty();
        assertThat(h.latest(ORDERS)).contains(B);
        // a pruned identity is forgotten with its entry; a retained one is still recognised
        assertThat(h.recordDdl("shape:299", SchemaChange.rowShape(ORDERS, B, T0))).isEqualTo(301);
        assertThat(h.recordDdl("shape:0", SchemaChange.rowShape(ORDERS, A, T0))).isEqualTo(302);
    }

    @Test
    void aCopyWithASmallerRetentionPrunesAtOnceAndKeepsVersions() {
        SchemaHistory h = new SchemaHistory();
        for (int i = 0; i < 10; i++) {
            h.recordDdl("shape:" + i, SchemaChange.rowShape(ORDERS, i % 2 == 0 ? A : B, T0.plusSeconds(i)));
        }
        SchemaHistory small = h.copy(3);
        assertThat(small.retention()).isEqualTo(3);
        assertThat(small.entries()).extracting(SchemaHistory.Entry::version).containsExactly(8L, 9L, 10L);
        assertThat(small.latestVersion()).isEqualTo(10);
        assertThat(small.atVersion(ORDERS, 7)).as("pruned").isEmpty();
        assertThat(small.atVersion(ORDERS, 8)).contains(B);
        assertThat(h.entries()).as("the original is unchanged").hasSize(10);
        // a pruned identity is forgotten, a retained one recognised; a larger retention keeps all there is
        assertThat(small.recordDdl("shape:9", SchemaChange.rowShape(ORDERS, B, T0))).isEqualTo(10);
        assertThat(small.recordDdl("shape:0", SchemaChange.rowShape(ORDERS, A, T0))).isEqualTo(11);
        assertThat(h.copy(1000).entries()).isEqualTo(h.entries());
    }

    @Test
    void retentionMustKeepSomething() {
        assertThatThrownBy(() -> new SchemaHistory(0)).hasMessageContaining("at least 1");
    }

    @Test
    void shapeMustBelongToTheRecordedTable() {
        assertThatThrownBy(() -> SchemaChange.create(TableId.of("shop", "public", "other"), "CREATE", A, T0))
                .hasMessageContaining("public.orders recorded for table shop:public.other");
        // MySQL: no schema level, the database stands in for it
        TableId mysql = TableId.of("shop", "shop", "orders");
        SchemaChange.create(mysql, "CREATE", RowShape.of("shop", "orders", List.of(ID), List.of()), T0);
    }

    static SchemaChange alterDiff(ColumnChange... diff) {
        return SchemaChange.alter(ORDERS, "ALTER TABLE orders ...", List.of(diff), T0);
    }

    static RowShape shape(RowShape.Column... columns) {
        return RowShape.of("public", "orders", List.of(columns), List.of("id"));
    }
}
