package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.history.ShapeDiff;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ShapeChange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Two capture instances of one table classified by the column ids {@code cdc.captured_columns}
 * records. The randomized test prints its seed; replay with {@code -Drustcdc.sqlserver.shapes.seed=<seed>}.
 */
class SqlServerShapeChangesTest {
    private static RowShape shape(RowShape.Column... columns) {
        return RowShape.of("dbo", "orders", List.of(columns), List.of("id"));
    }

    private static RowShape.Column column(String name, String type) {
        return RowShape.Column.of(name, type, !name.equals("id"));
    }

    @Test
    void aRenameKeepsItsIdAndADropAndAddUnderTheSameNameDoesNot() {
        RowShape before = shape(column("id", "int"), column("note", "nvarchar(20)"), column("qty", "int"));
        RowShape after = shape(column("id", "int"), column("remark", "nvarchar(20)"), column("qty", "int"));
        assertThat(SqlServerShapeChanges.classify(before, Map.of("id", 1, "note", 2, "qty", 3), after,
                Map.of("id", 1, "remark", 2, "qty", 3)))
                .containsExactly(ShapeChange.columnRenamed(column("note", "nvarchar(20)"), column("remark", "nvarchar(20)")));
        // qty dropped and added again (at the end, with a new id), of another type
        RowShape again = shape(column("id", "int"), column("note", "nvarchar(20)"), column("qty", "bigint"));
        assertThat(SqlServerShapeChanges.classify(before, Map.of("id", 1, "note", 2, "qty", 3), again,
                Map.of("id", 1, "note", 2, "qty", 4)))
                .containsExactly(ShapeChange.columnRemoved(column("qty", "int")),
                        ShapeChange.columnAdded(column("qty", "bigint"), 2));
        // the same id: a type change
        assertThat(SqlServerShapeChanges.classify(before, Map.of("id", 1, "note", 2, "qty", 3), again,
                Map.of("id", 1, "note", 2, "qty", 3)))
                .containsExactly(ShapeChange.columnChanged(column("qty", "int"), column("qty", "bigint")));
        assertThat(SqlServerShapeChanges.classify(before, Map.of("id", 1, "note", 2, "qty", 3), before,
                Map.of("id", 1, "note", 2, "qty", 3))).isEmpty();
    }

    @Test
    void withoutEveryIdColumnsAreMatchedByName() {
        RowShape before = shape(column("id", "int"), column("note", "nvarchar(20)"));
        RowShape after = shape(column("id", "int"), column("remark", "nvarchar(20)"));
        assertThat(SqlServerShapeChanges.classify(before, Map.of("id", 1), after, Map.of("id", 1, "remark", 2)))
                .extracting(ShapeChange::kind).containsExactly(ShapeChange.Kind.UNKNOWN);
    }

    /**
     * Random ALTERs (renames, drops, adds at the end, drops and adds under a name, type changes)
     * between two instances: classified without UNKNOWN, and applied to the older shape they give the
     * newer one; every renamed column is a rename.
     */
    @Test
    void randomAltersAreClassifiedExactly() {
        long seed = Long.getLong("rustcdc.sqlserver.shapes.seed", System.nanoTime());
        System.out.println("SqlServerShapeChangesTest seed " + seed + " (replay with -Drustcdc.sqlserver.shapes.seed="
                + seed + ")");
        Random random = new Random(seed);
        String[] types = {"int", "bigint", "nvarchar(20)", "decimal(10,2)", "datetime2(7)"};
        for (int run = 0; run < 1000; run++) {
            String at = "seed " + seed + " run " + run;
            List<RowShape.Column> columns = new ArrayList<>(List.of(column("id", "int")));
            List<Integer> ids = new ArrayList<>(List.of(1));
            int nextId = 2;
            int n = random.nextInt(6);
            for (int i = 0; i < n; i++) {
                columns.add(column("c" + i, types[random.nextInt(types.length)]));
                ids.add(nextId++);
            }
            RowShape before = RowShape.of("dbo", "t", columns, List.of("id"));
            Map<String, Integer> beforeIds = ids(columns, ids);
            int renames = 0;
            int steps = 1 + random.nextInt(4);
            for (int s = 0; s < steps; s++) {
                int op = random.nextInt(4);
                int i = 1 + (columns.size() > 1 ? random.nextInt(columns.size() - 1) : 0);
                if (columns.size() == 1 || op == 0) { // add at the end
                    columns.add(column("n" + nextId, types[random.nextInt(types.length)]));
                    ids.add(nextId++);
                } else if (op == 1) { // drop
                    columns.remove(i);
                    ids.remove(i);
                } else if (op == 2) { // rename, keeping the id
                    columns.set(i, RowShape.Column.of("r" + nextId++, columns.get(i).dataType(), true));
                    renames++;
                } else { // a type change, or a drop and an add under the same name
                    RowShape.Column c = columns.get(i);
                    String type = types[random.nextInt(types.length)];
                    if (random.nextBoolean()) {
                        columns.set(i, column(c.name(), type));
                    } else {
                        columns.remove(i);
                        ids.remove(i);
                        columns.add(column(c.name(), type));
                        ids.add(nextId++);
                    }
                }
            }
            RowShape after = RowShape.of("dbo", "t", columns, List.of("id"));
            List<ShapeChange> changes = SqlServerShapeChanges.classify(before, beforeIds, after, ids(columns, ids));
            assertThat(changes).as(at).noneMatch(c -> c.kind() == ShapeChange.Kind.UNKNOWN);
            assertThat(ShapeDiff.apply(before, changes)).as(at + " " + changes).isEqualTo(after);
            if (renames == 0) {
                assertThat(changes).as(at).noneMatch(c -> c.kind() == ShapeChange.Kind.COLUMN_RENAMED);
            }
        }
    }

    private static Map<String, Integer> ids(List<RowShape.Column> columns, List<Integer> ids) {
        Map<String, Integer> map = new HashMap<>();
        for (int i = 0; i < columns.size(); i++) {
            map.put(columns.get(i).name(), ids.get(i));
        }
        return map;
    }
}
