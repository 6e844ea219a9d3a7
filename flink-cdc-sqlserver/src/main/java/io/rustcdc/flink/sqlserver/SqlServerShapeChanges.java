package io.rustcdc.flink.sqlserver;

import io.rustcdc.flink.source.history.ShapeDiff;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ShapeChange;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Classifies the change between two capture instances of one table (during an ALTER, the older
 * instance keeps the old columns and the newer one captures the new ones): by the source table's
 * column ids the instances recorded ({@code cdc.captured_columns.column_id}), which a rename keeps and
 * a column dropped and added again does not, so a rename is told from a drop and an add. Stateless.
 */
final class SqlServerShapeChanges {
    private SqlServerShapeChanges() {}

    /**
     * The changes from {@code before} (the older instance's shape) to {@code after}, columns matched by
     * their ids; by name when an id of a column of either shape is not known (then a column gone and
     * another added at once is {@link ShapeChange.Kind#UNKNOWN}). Empty when the shapes are equal.
     */
    static List<ShapeChange> classify(RowShape before, Map<String, Integer> beforeIds, RowShape after,
            Map<String, Integer> afterIds) {
        if (!allKnown(before, beforeIds) || !allKnown(after, afterIds)) {
            return ShapeDiff.classify(before, after);
        }
        Map<Integer, String> afterById = new HashMap<>();
        for (RowShape.Column c : after.columns()) {
            afterById.put(afterIds.get(c.name()), c.name());
        }
        Map<String, String> same = new HashMap<>();
        for (RowShape.Column c : before.columns()) {
            String now = afterById.get(beforeIds.get(c.name()));
            if (now != null) {
                same.put(c.name(), now);
            }
        }
        return ShapeDiff.classify(before, after, same);
    }

    private static boolean allKnown(RowShape shape, Map<String, Integer> ids) {
        return shape.columns().stream().allMatch(c -> ids.containsKey(c.name()))
                && ids.values().stream().distinct().count() == ids.size();
    }
}
