package io.rustcdc.flink.sqlserver.stream;

import static io.rustcdc.flink.sqlserver.stream.RecordedChangeTables.lsn;
import static io.rustcdc.flink.sqlserver.stream.RecordedChangeTables.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.sqlserver.ChangeOperation;
import io.rustcdc.flink.sqlserver.Lsn;
import io.rustcdc.flink.sqlserver.SqlServerPosition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The window and floor decisions on recorded change table contents: every row exactly once, in
 * change order, the position never past a row not yet taken, purged changes told apart from a later
 * floor. The randomized test prints its seed; replay with {@code -Drustcdc.sqlserver.seed=<seed>}.
 */
class WindowLogicTest {
    private static final TableId ORDERS = TableId.of("shop", "dbo", "orders");
    private static final TableId ITEMS = TableId.of("shop", "dbo", "items");

    @Test
    void aFullPageStopsTheBatchAtTheLowestLastRowOfTheTruncatedInstances() {
        RecordedChangeTables tables = new RecordedChangeTables();
        for (int i = 0; i < 7; i++) {
            tables.add("dbo_orders", 10 + i, 100 + i, ChangeOperation.INSERT);
        }
        tables.add("dbo_items", 11, 200, ChangeOperation.INSERT).add("dbo_items", 20, 201, ChangeOperation.INSERT);
        List<CaptureInstance> instances = List.of(CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(1)),
                CaptureInstance.of("dbo_items", 2, ITEMS, lsn(1)));
        CaptureFloors floors = new CaptureFloors();
        WindowCursor cursor = new WindowCursor(SqlServerPosition.afterCommit(lsn(5)));
        Lsn end = cursor.window(lsn(30));

        WindowBatch first = round(tables, instances, floors, cursor, 3);
        // orders returned 10, 11, 12 (full); items 11 and 20: 20 is past the cut and read again
        assertThat(commits(first)).containsExactly(10L, 11L, 11L, 12L);
        assertThat(first.windowDone()).isFalse();
        assertThat(cursor.windowEnd()).isEqualTo(end);
        assertThat(cursor.position()).isEqualTo(tables.rows.get("dbo_orders").get(2).position());

        WindowBatch second = round(tables, instances, floors, cursor, 3);
        assertThat(commits(second)).containsExactly(13L, 14L, 15L);
        WindowBatch third = round(tables, instances, floors, cursor, 3);
        assertThat(commits(third)).containsExactly(16L, 20L);
        assertThat(third.windowDone()).isTrue();
        assertThat(cursor.position()).isEqualTo(SqlServerPosition.afterCommit(end));
        assertThat(cursor.windowEnd()).isNull();
        assertThat(cursor.window(end)).as("nothing after the window's end").isNull();
    }

    @Test
    void aPageEndingInAnUpdatesOldRowLeavesTheUpdateWhole() {
        RecordedChangeTables tables = new RecordedChangeTables().add("dbo_orders", 10, 1, ChangeOperation.INSERT)
                .update("dbo_orders", 10, 2);
        List<CaptureInstance> instances = List.of(CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(1)));
        CaptureFloors floors = new CaptureFloors();
        WindowCursor cursor = new WindowCursor(SqlServerPosition.afterCommit(lsn(5)));
        cursor.window(lsn(10));
        WindowBatch first = round(tables, instances, floors, cursor, 2);
        assertThat(first.rows()).extracting(ChangeRow::operation).containsExactly(ChangeOperation.INSERT);
        WindowBatch second = round(tables, instances, floors, cursor, 2);
        assertThat(second.rows()).extracting(ChangeRow::operation)
                .containsExactly(ChangeOperation.UPDATE_BEFORE, ChangeOperation.UPDATE_AFTER);
        assertThat(second.windowDone()).as("a full page may have more after it").isFalse();
        WindowBatch third = round(tables, instances, floors, cursor, 2);
        assertThat(third.rows()).isEmpty();
        assertThat(third.windowDone()).isTrue();
    }

    @Test
    void resumingInsideACommitReadsTheRestOfIt() {
        RecordedChangeTables tables = new RecordedChangeTables().add("dbo_orders", 10, 1, ChangeOperation.INSERT)
                .add("dbo_orders", 10, 2, ChangeOperation.INSERT).add("dbo_items", 10, 3, ChangeOperation.DELETE);
        List<CaptureInstance> instances = List.of(CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(1)),
                CaptureInstance.of("dbo_items", 2, ITEMS, lsn(1)));
        WindowCursor cursor = new WindowCursor(tables.rows.get("dbo_orders").get(0).position());
        assertThat(cursor.window(lsn(10))).as("the rest of commit 10 is a window").isEqualTo(lsn(10));
        WindowBatch batch = round(tables, instances, new CaptureFloors(), cursor, 10);
        assertThat(batch.rows()).extracting(r -> r.position().seqval()).containsExactly(lsn(2), lsn(3));
    }

    @Test
    void anInstanceIsReadFromItsFloorAndSkippedInWindowsBeforeIt() {
        CaptureInstance late = CaptureInstance.of("dbo_items", 2, ITEMS, lsn(50));
        CaptureFloors floors = new CaptureFloors();
        SqlServerPosition start = SqlServerPosition.afterCommit(lsn(5));
        assertThat(WindowPlanner.plan(start, lsn(40), List.of(late), floors)).isEmpty();
        List<InstanceRead> reads = WindowPlanner.plan(start, lsn(60), List.of(late), floors);
        assertThat(reads).singleElement().satisfies(r -> {
            assertThat(r.from()).isEqualTo(lsn(50));
            assertThat(r.to()).isEqualTo(lsn(60));
        });
    }

    @Test
    void twoInstancesOfOneTableSwitchAtTheNewerOnesFloor() {
        RecordedChangeTables tables = new RecordedChangeTables().add("dbo_orders", 20, 1, ChangeOperation.INSERT)
                .add("dbo_orders", 60, 2, ChangeOperation.INSERT) // the old instance still captures after the ALTER
                .add("dbo_orders_v2", 60, 2, ChangeOperation.INSERT);
        List<CaptureInstance> instances = List.of(
                CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(1)).supersededAt(lsn(50)),
                CaptureInstance.of("dbo_orders_v2", 3, ORDERS, lsn(50)));
        WindowCursor cursor = new WindowCursor(SqlServerPosition.afterCommit(lsn(5)));
        cursor.window(lsn(70));
        WindowBatch batch = round(tables, instances, new CaptureFloors(), cursor, 10);
        assertThat(batch.rows()).extracting(ChangeRow::instance).containsExactly("dbo_orders", "dbo_orders_v2");
        assertThat(WindowPlanner.plan(SqlServerPosition.afterCommit(lsn(55)), lsn(70), instances, new CaptureFloors()))
                .extracting(r -> r.instance().name()).containsExactly("dbo_orders_v2");
    }

    @Test
    void aFloorRaisedPastUnreadChangesIsPurgedDataNamingTheInstance() {
        CaptureFloors floors = new CaptureFloors();
        CaptureInstance orders = CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(1));
        SqlServerPosition at = SqlServerPosition.afterCommit(lsn(10));
        WindowPlanner.plan(at, lsn(20), List.of(orders), floors);
        // the cleanup job raised the floor to 15: rows in (10, 15) are gone
        CaptureInstance cleaned = CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(15));
        assertThatThrownBy(() -> WindowPlanner.plan(at, lsn(20), List.of(cleaned), floors))
                .isInstanceOf(CdcException.class)
                .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.POSITION_LOST))
                .hasMessageContaining("capture instance 'dbo_orders' (table dbo.orders)")
                .hasMessageContaining("sp_cdc_change_job");
        // a floor raised only up to the position loses nothing
        CaptureInstance upToPosition = CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(10));
        assertThat(WindowPlanner.plan(at, lsn(20), List.of(upToPosition), floors)).hasSize(1);
        // the same name with another change table is another instance (CDC disabled and enabled again): below
        // its floor the changes went with the old change table; once past it, it is seen anew, not as purged
        CaptureInstance recreated = CaptureInstance.of("dbo_orders", 9, ORDERS, lsn(15));
        assertThatThrownBy(() -> WindowPlanner.plan(at, lsn(20), List.of(recreated), floors))
                .hasMessageContaining("was dropped while the stream was at 00000025:0000000A:0001");
        assertThat(WindowPlanner.plan(SqlServerPosition.beforeCommit(lsn(15)), lsn(20), List.of(recreated), floors))
                .hasSize(1);
    }

    @Test
    void aNewInstancesFloorIsNormalWhileOneRaisedAfterItWasSeenIsPurged() {
        CaptureFloors floors = new CaptureFloors();
        SqlServerPosition at = SqlServerPosition.afterCommit(lsn(10));
        WindowPlanner.plan(at, lsn(20), List.of(CaptureInstance.of("dbo_items", 2, ITEMS, lsn(30))), floors);
        assertThatThrownBy(() -> WindowPlanner.plan(at, lsn(40),
                List.of(CaptureInstance.of("dbo_items", 2, ITEMS, lsn(35))), floors))
                .hasMessageContaining("its floor was 00000025:0000001E:0001 when the stream first saw it");
    }

    @Test
    void atOpenAFloorPastThePositionIsPurgedOnlyForAnInstanceCreatedBeforeIt() {
        SqlServerPosition at = SqlServerPosition.afterCommit(lsn(10));
        Instant commitTime = Instant.parse("2026-12-01T10:00:00Z");
        CaptureInstance instance = CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(20));
        new CaptureFloors().opened(instance, at, commitTime.plusMillis(3), commitTime);
        new CaptureFloors().opened(instance, at, commitTime, commitTime);
        new CaptureFloors().opened(instance, at, commitTime.minusSeconds(60), null);
        new CaptureFloors().opened(CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(10)), at,
                commitTime.minusSeconds(60), commitTime);
        assertThatThrownBy(() -> new CaptureFloors().opened(instance, at, commitTime.minusSeconds(60), commitTime))
                .isInstanceOf(CdcException.class).hasMessageContaining("'dbo_orders'")
                .hasMessageContaining("created at 2026-12-01T09:59:00Z, before the position's commit");
    }

    @Test
    void anInstanceGoneWithoutANewerOneOfItsTableFailsNamingIt() {
        CaptureFloors floors = new CaptureFloors();
        SqlServerPosition at = SqlServerPosition.afterCommit(lsn(10));
        CaptureInstance orders = CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(1));
        CaptureInstance items = CaptureInstance.of("dbo_items", 2, ITEMS, lsn(1));
        WindowPlanner.plan(at, lsn(20), List.of(orders, items), floors);
        // replaced by a newer instance of its table, dropped once the stream passed the newer one's floor:
        // the ALTER's switch, not a loss
        CaptureInstance ordersV2 = CaptureInstance.of("dbo_orders_v2", 3, ORDERS, lsn(15));
        SqlServerPosition past = SqlServerPosition.beforeCommit(lsn(15));
        assertThat(WindowPlanner.plan(past, lsn(20), List.of(ordersV2, items), floors)).hasSize(2);
        assertThatThrownBy(() -> WindowPlanner.plan(past, lsn(20), List.of(ordersV2), floors))
                .isInstanceOf(CdcException.class).hasMessageContaining("Capture instance 'dbo_items' (table dbo.items) "
                        + "is gone")
                .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.POSITION_LOST));
    }

    /**
     * The older instance dropped before the stream reached the newer one's floor (or CDC disabled and
     * enabled again on the table): its changes in between were only in the dropped change table.
     */
    @Test
    void anInstanceDroppedBelowItsSuccessorsFloorFailsNamingIt() {
        CaptureFloors floors = new CaptureFloors();
        SqlServerPosition at = SqlServerPosition.afterCommit(lsn(10));
        CaptureInstance orders = CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(1));
        WindowPlanner.plan(at, lsn(20), List.of(orders), floors);
        CaptureInstance ordersV2 = CaptureInstance.of("dbo_orders_v2", 3, ORDERS, lsn(15));
        // both listed: the older one is read below the newer one's floor
        assertThat(WindowPlanner.plan(at, lsn(20), List.of(orders.supersededAt(lsn(15)), ordersV2), floors)).hasSize(2);
        assertThatThrownBy(() -> WindowPlanner.plan(at, lsn(20), List.of(ordersV2), floors))
                .isInstanceOf(CdcException.class)
                .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.POSITION_LOST))
                .hasMessageContaining("Capture instance 'dbo_orders' (table dbo.orders) was dropped while the stream "
                        + "was at 00000025:0000000A:0001, below the floor 00000025:0000000F:0001 of the instance that "
                        + "replaced it");
        // a newer instance dropped while the older one still captures loses nothing
        CaptureFloors both = new CaptureFloors();
        WindowPlanner.plan(at, lsn(20), List.of(orders.supersededAt(lsn(15)), ordersV2), both);
        assertThat(WindowPlanner.plan(at, lsn(20), List.of(orders), both)).hasSize(1);
    }

    /**
     * The table dropped (or renamed away) and another created under its name with CDC enabled: its old
     * instance went with it, and the instance listed under the name captures another object. This fails as
     * a table replaced, naming both object_ids, also where the position is past the new instance's floor
     * (which the stream cannot reach while it still saw the old one, but the message must not call it an
     * ALTER's switch). An ALTER's switch keeps the table's object_id and is not a replacement.
     */
    @Test
    void anInstanceGoneWithItsTableReplacedUnderTheNameFailsAsReplaced() {
        SqlServerPosition at = SqlServerPosition.afterCommit(lsn(10));
        CaptureInstance orders = CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(1)).ofSourceObject(581577110);
        CaptureInstance again = CaptureInstance.of("dbo_orders", 4, ORDERS, lsn(15)).ofSourceObject(645577338);
        for (SqlServerPosition position : List.of(at, SqlServerPosition.beforeCommit(lsn(15)))) {
            CaptureFloors floors = new CaptureFloors();
            WindowPlanner.plan(at, lsn(20), List.of(orders), floors);
            assertThatThrownBy(() -> WindowPlanner.plan(position, lsn(20), List.of(again), floors))
                    .isInstanceOf(CdcException.class)
                    .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.POSITION_LOST))
                    .hasMessageContaining("Table dbo.orders was replaced while the stream was at " + position)
                    .hasMessageContaining("object_id 581577110 before, object_id 645577338 now")
                    .hasMessageContaining("capture instance 'dbo_orders' went with the old table")
                    .hasMessageContaining("Start the source without state to snapshot the table again");
        }
        // an ALTER's switch: the newer instance captures the same table, dropped once the stream passed its floor
        CaptureFloors floors = new CaptureFloors();
        WindowPlanner.plan(at, lsn(20), List.of(orders), floors);
        CaptureInstance v2 = CaptureInstance.of("dbo_orders_v2", 3, ORDERS, lsn(15)).ofSourceObject(581577110);
        assertThat(WindowPlanner.plan(SqlServerPosition.beforeCommit(lsn(15)), lsn(20), List.of(v2), floors)).hasSize(1);
    }

    /** After a restore: a table the stream delivered rows of needs an instance that starts at or before the position. */
    @Test
    void aRestoredStreamFailsForATableWhoseInstanceOfThePositionIsGone() {
        SqlServerPosition at = SqlServerPosition.afterCommit(lsn(10));
        CaptureInstance orders = CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(1));
        CaptureInstance reenabled = CaptureInstance.of("dbo_orders", 7, ORDERS, lsn(30));
        CaptureInstance items = CaptureInstance.of("dbo_items", 2, ITEMS, lsn(30));
        // covered; a table added while the stream ran behind its floor delivered no row before it
        CaptureFloors.requireCovered(java.util.Set.of(ORDERS), List.of(orders, items), at);
        CaptureFloors.requireCovered(java.util.Set.of(ORDERS), List.of(orders.supersededAt(lsn(5)),
                CaptureInstance.of("dbo_orders_v2", 3, ORDERS, lsn(5))), at);
        assertThatThrownBy(() -> CaptureFloors.requireCovered(java.util.Set.of(ORDERS), List.of(reenabled, items), at))
                .isInstanceOf(CdcException.class)
                .satisfies(e -> assertThat(((CdcException) e).kind()).isEqualTo(CdcException.Kind.POSITION_LOST))
                .hasMessageContaining("Table dbo.orders, whose changes this source streamed up to "
                        + "00000025:0000000A:0001, has no capture instance that starts at or before that position "
                        + "(the earliest starts at 00000025:0000001E:0001)");
        assertThatThrownBy(() -> CaptureFloors.requireCovered(java.util.Set.of(ORDERS), List.of(items), at))
                .hasMessageContaining("has no capture instance any more");
    }

    @Test
    void error313IsPurgedDataOnlyWhenTheFloorIsNowAboveTheRead() {
        CaptureFloors floors = new CaptureFloors();
        CaptureInstance orders = CaptureInstance.of("dbo_orders", 1, ORDERS, lsn(1));
        SqlServerPosition at = SqlServerPosition.afterCommit(lsn(10));
        InstanceRead read = WindowPlanner.plan(at, lsn(20), List.of(orders), floors).get(0);
        floors.rangeRefused(read, lsn(10), at); // not the floor: the caller fails with SQL Server's error
        floors.rangeRefused(read, lsn(3), at);
        assertThatThrownBy(() -> floors.rangeRefused(read, lsn(12), at)).isInstanceOf(CdcException.class)
                .hasMessageContaining("'dbo_orders'").hasMessageContaining("error 313");
    }

    /**
     * Random change tables (inserts, deletes, updates as old and new rows, several instances sharing
     * commits, instances created later), page sizes and window ends: the rounds deliver every row up to
     * the last window once, in change order, with updates whole, and each position is after exactly
     * the rows delivered.
     */
    @Test
    void randomChangeTablesAreReadExactlyOnceInOrder() {
        long seed = Long.getLong("rustcdc.sqlserver.seed", System.nanoTime());
        System.out.println("WindowLogicTest seed " + seed + " (replay with -Drustcdc.sqlserver.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int run = 0; run < 300; run++) {
            String at = "seed " + seed + " run " + run;
            RecordedChangeTables tables = new RecordedChangeTables();
            int instanceCount = 1 + random.nextInt(4);
            List<CaptureInstance> instances = new ArrayList<>();
            for (int i = 0; i < instanceCount; i++) {
                instances.add(CaptureInstance.of("dbo_t" + i, i, TableId.of("db", "dbo", "t" + i),
                        lsn(random.nextInt(3) == 0 ? 1 + random.nextInt(200) : 1)));
            }
            long seqval = 1;
            for (long commit = 2; commit < 220; commit++) {
                int changes = random.nextInt(4) == 0 ? random.nextInt(6) : 0;
                for (int c = 0; c < changes; c++) {
                    CaptureInstance instance = instances.get(random.nextInt(instanceCount));
                    if (commit < value(instance.floor())) {
                        continue; // an instance captures nothing before its floor
                    }
                    int kind = random.nextInt(4);
                    int command = random.nextInt(3); // statements need not follow the sequence values
                    if (kind == 0) {
                        tables.update(instance.name(), commit, command, seqval++);
                    } else if (kind == 1) { // a key update: delete and insert share a sequence value
                        tables.add(instance.name(), commit, command, seqval, ChangeOperation.DELETE)
                                .add(instance.name(), commit, command, seqval++, ChangeOperation.INSERT);
                    } else {
                        tables.add(instance.name(), commit, command, seqval++,
                                kind == 2 ? ChangeOperation.INSERT : ChangeOperation.DELETE);
                    }
                }
            }
            int pageSize = 2 + random.nextInt(6);
            CaptureFloors floors = new CaptureFloors();
            WindowCursor cursor = new WindowCursor(SqlServerPosition.afterCommit(lsn(1)));
            List<ChangeRow> delivered = new ArrayList<>();
            long maxLsn = 1;
            for (int round = 0; round < 10_000 && maxLsn < 230; round++) {
                if (random.nextInt(3) == 0) {
                    maxLsn += random.nextInt(40); // the capture job moves on, between windows or within one
                }
                Lsn end = cursor.window(lsn(maxLsn));
                if (end == null) {
                    continue;
                }
                SqlServerPosition before = cursor.position();
                WindowBatch batch = round(tables, instances, floors, cursor, pageSize);
                assertThat(batch.rows()).as(at).allSatisfy(r -> assertThat(r.position()).isGreaterThan(before)
                        .isLessThanOrEqualTo(cursor.position()));
                assertThat(cursor.position().commitLsn()).as(at).isLessThanOrEqualTo(end);
                delivered.addAll(batch.rows());
            }
            List<ChangeRow> expected = tables.rows.values().stream().flatMap(List::stream)
                    .filter(r -> value(r.position().commitLsn()) <= value(cursor.position().commitLsn()))
                    .sorted(Comparator.comparing(ChangeRow::position)).collect(Collectors.toList());
            if (cursor.windowEnd() == null) {
                assertThat(delivered).as(at).containsExactlyElementsOf(expected);
            } else {
                assertThat(delivered).as(at).containsExactlyElementsOf(expected.stream()
                        .filter(r -> r.position().compareTo(cursor.position()) <= 0).collect(Collectors.toList()));
            }
            for (int i = 0; i < delivered.size(); i++) {
                if (delivered.get(i).operation() == ChangeOperation.UPDATE_BEFORE) {
                    assertThat(delivered.get(i + 1).operation()).as(at + " update whole")
                            .isEqualTo(ChangeOperation.UPDATE_AFTER);
                }
            }
        }
    }

    private static WindowBatch round(RecordedChangeTables tables, List<CaptureInstance> instances,
            CaptureFloors floors, WindowCursor cursor, int pageSize) {
        List<InstancePage> pages = new ArrayList<>();
        for (InstanceRead read : WindowPlanner.plan(cursor.position(), cursor.windowEnd(), instances, floors)) {
            pages.add(tables.read(read, pageSize));
        }
        WindowBatch batch = WindowBatch.of(pages, cursor.windowEnd());
        cursor.advance(batch);
        return batch;
    }

    private static List<Long> commits(WindowBatch batch) {
        return batch.rows().stream().map(r -> value(r.position().commitLsn())).collect(Collectors.toList());
    }
}
