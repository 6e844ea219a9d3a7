package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.spi.TableDescription;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A MariaDB chunk whose snapshot position is not confirmed streams its rows through the changes of
 * the binlog window between the two positions that bound the snapshot: the result is the rows with
 * each changed key's last change applied, as applying the window to the held rows gives, while only
 * the changed keys are held.
 */
class ChunkBackfillMergeTest {
    private static final TableId T = TableId.of("d", "d", "t");
    private static final RowType TYPE = RowType.of(List.of("id", "v"),
            List.of(ValueType.of(ValueKind.BIGINT), ValueType.of(ValueKind.BIGINT)));
    private static final TableDescription TABLE = TableDescription.of(T, RowShape.of("d", "t",
            List.of(RowShape.Column.of("id", "bigint", false), RowShape.Column.of("v", "bigint", true)), List.of("id")),
            TYPE);

    @Test
    void streamingThroughTheWindowGivesWhatApplyingItToTheHeldRowsGives() {
        long seed = System.nanoTime();
        System.out.println("ChunkBackfillMergeTest seed " + seed + " (replay: -Drustcdc.merge.seed=" + seed + ")");
        Random random = new Random(Long.getLong("rustcdc.merge.seed", seed));
        for (int run = 0; run < 500; run++) {
            List<Row> snapshot = new ArrayList<>();
            for (long id = 1; id <= 30; id++) {
                if (random.nextBoolean()) {
                    snapshot.add(row(id, random.nextInt(100)));
                }
            }
            List<ChangeEvent> window = new ArrayList<>();
            for (int i = random.nextInt(40); i > 0; i--) {
                window.add(change(random));
            }
            ChunkBackfill held = backfill(snapshot);
            ChunkBackfill changes = backfill(List.of());
            window.forEach(e -> {
                held.apply(e);
                changes.apply(e);
            });
            List<Row> streamed = new ArrayList<>();
            snapshot.forEach(r -> changes.merge(r, streamed::add));
            streamed.addAll(changes.rows());
            assertThat(byKey(streamed)).as("seed %d, run %d", seed, run).isEqualTo(byKey(held.rows()));
        }
    }

    @Test
    void aTruncateInTheWindowRemovesTheSnapshotRowsNotSetSince() {
        ChunkBackfill changes = backfill(List.of());
        changes.apply(ChangeEvent.builder(Op.TRUNCATE, T, SourceInfo.snapshot("mariadb", null)).build());
        changes.apply(insert(row(2, 20)));
        List<Row> streamed = new ArrayList<>();
        List.of(row(1, 1), row(2, 2), row(3, 3)).forEach(r -> changes.merge(r, streamed::add));
        streamed.addAll(changes.rows());
        assertThat(byKey(streamed)).containsExactly(Map.entry(2L, 20L));
    }

    private static ChunkBackfill backfill(List<Row> snapshot) {
        return new ChunkBackfill(null, null, null, Map.of(), TABLE, List.of("id"), null, null, snapshot);
    }

    private static ChangeEvent change(Random random) {
        long id = 1 + random.nextInt(35);
        switch (random.nextInt(3)) {
            case 0:
                return insert(row(id, random.nextInt(100)));
            case 1:
                long to = random.nextInt(4) == 0 ? 1 + random.nextInt(35) : id; // a key move now and then
                return ChangeEvent.builder(Op.UPDATE, T, SourceInfo.snapshot("mariadb", null)).before(row(id, 0))
                        .after(row(to, random.nextInt(100))).build();
            default:
                return ChangeEvent.builder(Op.DELETE, T, SourceInfo.snapshot("mariadb", null)).before(row(id, 0)).build();
        }
    }

    private static ChangeEvent insert(Row row) {
        return ChangeEvent.builder(Op.INSERT, T, SourceInfo.snapshot("mariadb", null)).after(row).build();
    }

    private static Row row(long id, long v) {
        return Row.of(TYPE, id, v);
    }

    private static Map<Long, Long> byKey(Iterable<Row> rows) {
        Map<Long, Long> result = new TreeMap<>();
        for (Row r : rows) {
            Long previous = result.put((Long) r.get(0), (Long) r.get(1));
            assertThat(previous).as("key %s emitted twice", r.get(0)).isNull();
        }
        return result;
    }
}
