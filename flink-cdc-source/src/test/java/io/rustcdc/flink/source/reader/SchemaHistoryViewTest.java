package io.rustcdc.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.history.SchemaChange;
import io.rustcdc.flink.source.history.SchemaHistory;
import io.rustcdc.flink.source.history.SchemaHistoryView;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.DdlType;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.RowType;
import io.rustcdc.flink.source.model.SchemaChangeRows;
import io.rustcdc.flink.source.model.SourceInfo;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.model.ValueType;
import io.rustcdc.flink.source.split.TestPosition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The view a job builds from the schema change events it receives answers what the source's own
 * history answers of those changes: the events are versioned as the stream emitter versions them
 * (the recorder's version, set with {@link SchemaChangeRows#withHistoryVersion}), replays included.
 */
class SchemaHistoryViewTest {
    private static final List<TableId> TABLES = List.of(TableId.of("shop", "public", "a"),
            TableId.of("shop", "public", "b"), TableId.of("shop", "public", "c"));
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void viewOfTheEmittedEventsAnswersAsTheSourceHistoryForRandomChanges() throws Exception {
        long seed = Long.getLong("rustcdc.historyview.seed", System.nanoTime());
        System.out.println("SchemaHistoryViewTest seed " + seed + " (replay with -Drustcdc.historyview.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int round = 0; round < 40; round++) {
            checkRound(random, "seed " + seed + " round " + round);
        }
    }

    private static void checkRound(Random random, String context) throws Exception {
        SchemaHistory source = new SchemaHistory(100_000);
        ShapeRecorder recorder = new ShapeRecorder(source);
        SchemaHistoryView view = new SchemaHistoryView(100_000);
        Map<TableId, RowShape> current = new HashMap<>();
        List<ChangeEvent> emitted = new ArrayList<>();
        for (int step = 0; step < 60; step++) {
            TableId table = TABLES.get(random.nextInt(TABLES.size()));
            Instant time = T0.plusSeconds(step / 2); // two changes may share a commit time
            ChangeEvent event = nextEvent(random, table, current, time, step);
            long version = recorder.record(event, new TestPosition(step));
            ChangeEvent out = version > 0 ? SchemaChangeRows.withHistoryVersion(event, version) : event;
            emitted.add(out);
            view.observe(out);
            if (random.nextInt(8) == 0) { // a restore replays events from an earlier position: nothing changes
                int from = random.nextInt(emitted.size());
                for (ChangeEvent again : emitted.subList(from, emitted.size())) {
                    assertThat(view.observe(again)).as(context).isFalse();
                }
            }
        }
        for (TableId table : TABLES) {
            List<SchemaHistory.Entry> changes = source.entries(table).stream()
                    .filter(e -> e.change().kind() != SchemaChange.Kind.ROW_SHAPE).toList();
            assertThat(view.entries(table)).extracting(SchemaHistory.Entry::version)
                    .as(context).containsExactlyElementsOf(changes.stream().map(SchemaHistory.Entry::version).toList());
            for (long v = 0; v <= source.latestVersion() + 1; v++) {
                long version = v;
                assertThat(view.atVersion(table, v)).as(context + " " + table + " v" + v)
                        .isEqualTo(lastShape(changes, e -> e.version() <= version));
            }
            for (int s = -1; s <= 31; s++) {
                Instant time = T0.plusSeconds(s);
                assertThat(view.atTime(table, time)).as(context + " " + table + " at " + time)
                        .isEqualTo(lastShape(changes, e -> !e.change().timestamp().isAfter(time)));
            }
        }
        SchemaHistoryView restored = SchemaHistoryView.fromBytes(view.toBytes());
        for (TableId table : TABLES) {
            assertThat(restored.entries(table)).as(context).isEqualTo(view.entries(table));
        }
        assertThat(restored.latestVersion()).isEqualTo(view.latestVersion());
    }

    private static Optional<RowShape> lastShape(List<SchemaHistory.Entry> entries,
            java.util.function.Predicate<SchemaHistory.Entry> test) {
        Optional<RowShape> found = Optional.empty();
        for (SchemaHistory.Entry e : entries) {
            if (test.test(e)) {
                found = Optional.ofNullable(e.shape());
            }
        }
        return found;
    }

    /** A row of the table's shape, or a creation, an alteration (its shape known or not) or a drop. */
    private static ChangeEvent nextEvent(Random random, TableId table, Map<TableId, RowShape> current, Instant time,
            int step) {
        SourceInfo source = SourceInfo.stream("test", new TestPosition(step), time);
        RowShape shape = current.get(table);
        int pick = random.nextInt(10);
        if (shape != null && pick < 4) {
            Row row = Row.of(RowType.of(List.of("id"), List.of(ValueType.of(ValueKind.BIGINT))), (long) step);
            return ChangeEvent.builder(Op.INSERT, table, source).after(row).shape(shape).build();
        }
        DdlType type;
        RowShape after;
        if (shape == null) {
            type = DdlType.CREATE_TABLE;
            after = randomShape(random, table);
        } else if (pick < 6) {
            type = DdlType.DROP_TABLE;
            after = null;
        } else {
            type = DdlType.ALTER_TABLE;
            // the connector could not read the resulting shape: the next row will carry it
            after = randomShape(random, table);
            current.put(table, after);
            if (pick == 9) {
                return schemaChange(table, source, type, null);
            }
        }
        if (after == null) {
            current.remove(table);
        } else {
            current.put(table, after);
        }
        return schemaChange(table, source, type, after);
    }

    private static ChangeEvent schemaChange(TableId table, SourceInfo source, DdlType type, RowShape after) {
        return ChangeEvent.builder(Op.SCHEMA_CHANGE, table, source)
                .after(SchemaChangeRows.of(table, type, type + " " + table.table())).shape(after).build();
    }

    private static RowShape randomShape(Random random, TableId table) {
        List<RowShape.Column> columns = new ArrayList<>();
        columns.add(RowShape.Column.of("id", "bigint", false));
        for (int i = 0; i < random.nextInt(3); i++) {
            columns.add(RowShape.Column.of("c" + random.nextInt(4) + "_" + i, random.nextBoolean() ? "text" : "int",
                    true));
        }
        return RowShape.of(table.schema(), table.table(), columns, List.of("id"));
    }
}
